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
  grep -q 'backup: { every: 24h, to: \["/var/lib/quire/napkin-notes/backups"\] }' "$out/napkin-notes.yaml" \
    && echo "ok   the YAML takes a backup a day into the state folder ($mode)" || { echo "FAIL no storage.backup in the YAML ($mode)"; failed=1; }
  grep -q "not the keys" "$out/INSTALL.txt" && ! grep -q "nothing else is written" "$out/INSTALL.txt" \
    && echo "ok   INSTALL.txt says where the backups are and that the keys are kept apart ($mode)" || { echo "FAIL INSTALL.txt on backups ($mode)"; failed=1; }
  rm -rf "$out"
done
echo "deploy check: $([ $failed = 0 ] && echo passed || echo failed)"
exit $failed
