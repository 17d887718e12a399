// @ts-check
/**
 * A list of tags changed on this phone, put onto the list as the server has it when the change is
 * sent (the outbox's `rebase: tags`): what this phone added and took off, not its whole list, so a
 * tag another phone added meanwhile (while this one was offline) stays.
 */

/**
 * @param {string[]} base  the tags this phone showed when the change was made
 * @param {string[]} mine  the tags after the change
 * @param {string[]} now   the server's tags when it is sent
 * @returns {string[]}
 */
export function mergeTags(base, mine, now) {
  const removed = new Set(base.filter((tag) => !mine.includes(tag)));
  const kept = now.filter((tag) => !removed.has(tag));
  return [...kept, ...mine.filter((tag) => !base.includes(tag) && !kept.includes(tag))];
}
