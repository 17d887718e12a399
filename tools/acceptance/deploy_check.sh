#!/usr/bin/env bash
# quire deploy's files for each of --domain, --lan and neither: systemd-analyze verify accepts the
# unit (the binary path pointed at this build), the secrets file is 0600, the YAML passes
# quire config check. Prints ok/FAIL lines and exits 1 on a failure.
set -uo pipefail
binary=$(realpath "${1:-.build/debug/quire}")
failed=0
for mode in "--lan" "--domain notes.example.org --email ops@example.org" ""; do
  out=$(mktemp -d)
  # shellcheck disable=SC2086
  "$binary" deploy --app napkin-notes $mode --out "$out" >/dev/null || { echo "FAIL quire deploy $mode"; failed=1; continue; }
  sed -i "s#^ExecStart=/usr/local/bin/quire#ExecStart=$binary#" "$out/quire-napkin-notes.service"
  if verify=$(systemd-analyze verify "$out/quire-napkin-notes.service" 2>&1 | grep -v "EnvironmentFile\|Documentation\|LoadCredential"); [ -z "$verify" ]; then
    echo "ok   systemd-analyze verify accepts the unit ($mode)"
  else echo "FAIL systemd-analyze verify ($mode): $verify"; failed=1; fi
  # The YAML as the service reads it: the env file's values, the data in a folder of the test's.
  if checked=$(set -a; . "$out/quire-napkin-notes.env"; QUIRE_DATA="$out/state" "$binary" config check "$out/napkin-notes.yaml" 2>&1); then
    echo "ok   quire config check accepts the YAML ($mode)"
  else echo "FAIL quire config check ($mode): $checked"; failed=1; fi
  [ "$(stat -c %a "$out/quire-napkin-notes.env")" = 600 ] && echo "ok   the secrets file is 0600 ($mode)" || { echo "FAIL secrets not 0600"; failed=1; }
  grep -q "ProtectSystem=strict" "$out/quire-napkin-notes.service" && grep -q "DynamicUser=yes" "$out/quire-napkin-notes.service" \
    && echo "ok   hardened: DynamicUser, ProtectSystem=strict ($mode)" || { echo "FAIL unit not hardened"; failed=1; }
  # Backups run by themselves (operations.md): storage.backup, daily, into the state folder the unit may write.
  grep -q 'backup: { every: 24h, to: \["/var/lib/quire/napkin-notes/backups"\], passphrase_file: "${CREDENTIALS_DIRECTORY:-/etc/quire}/quire-napkin-notes.backup-passphrase" }' "$out/napkin-notes.yaml" \
    && echo "ok   the YAML takes a backup a day into the state folder ($mode)" || { echo "FAIL no storage.backup in the YAML ($mode)"; failed=1; }
  # The backups seal the keys with a passphrase quire deploy makes: 0600, a systemd credential only the service reads,
  # and INSTALL.txt says to keep a copy elsewhere and how to restore on a new machine.
  phrase="$out/quire-napkin-notes.backup-passphrase"
  [ "$(stat -c %a "$phrase")" = 600 ] && [ "$(head -c 43 "$phrase" | wc -c)" = 43 ] \
    && echo "ok   the backup passphrase file is 0600, 43 random characters ($mode)" || { echo "FAIL backup passphrase file ($mode)"; failed=1; }
  grep -q "^LoadCredential=quire-napkin-notes.backup-passphrase:/etc/quire/quire-napkin-notes.backup-passphrase$" "$out/quire-napkin-notes.service" \
    && echo "ok   the unit hands the passphrase to the service alone (LoadCredential) ($mode)" || { echo "FAIL no LoadCredential ($mode)"; failed=1; }
  ! grep -q "QUIRE_AUTH_SECRET=" "$out/quire-napkin-notes.env" \
    && echo "ok   the token key is made in the state folder, so backups carry it ($mode)" || { echo "FAIL QUIRE_AUTH_SECRET in the env file ($mode)"; failed=1; }
  grep -q "KEEP A COPY OF THAT FILE OFF THIS MACHINE" "$out/INSTALL.txt" && grep -q "Restore on a new machine" "$out/INSTALL.txt" \
    && ! grep -q "holds the records and the blobs, not the keys" "$out/INSTALL.txt" \
    && echo "ok   INSTALL.txt says the keys are sealed, to keep the passphrase elsewhere, and how to restore ($mode)" || { echo "FAIL INSTALL.txt on backups ($mode)"; failed=1; }
  # Deploying again keeps the passphrase (the backups so far are sealed with it).
  before=$(cat "$phrase")
  # shellcheck disable=SC2086
  "$binary" deploy --app napkin-notes $mode --out "$out" >/dev/null && [ "$(cat "$phrase")" = "$before" ] \
    && echo "ok   deploying again keeps the passphrase ($mode)" || { echo "FAIL the passphrase changed on a second deploy ($mode)"; failed=1; }
  rm -rf "$out"
done
echo "deploy check: $([ $failed = 0 ] && echo passed || echo failed)"
exit $failed
