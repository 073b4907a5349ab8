#!/usr/bin/env bash
# The docs-page test (test/e2e/docs-page.test.ts) and the console tests (test/e2e/console*.test.ts,
# through playwright-core 1.64.1, whose protocol matches Chromium 156) run headless Chromium from
# Debian's `chromium` package. Run before the tests (`npm test`): installs it where it is missing
# and this shell may (root with apt-get, as on CI and a fresh machine of this kind), otherwise
# says how.
set -euo pipefail
if command -v "${CHROMIUM:-chromium}" >/dev/null 2>&1; then exit 0; fi
if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
  echo "==> installing Debian's chromium for the docs-page test (apt-get, about 30 s)" >&2
  # A fresh image may have no package lists yet: read them once if the first try cannot find it.
  DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null 2>&1 ||
    { apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium >/dev/null; }
  exit 0
fi
echo "npm test needs Debian's chromium for test/e2e/docs-page.test.ts: sudo apt-get install chromium (or set CHROMIUM to a Chromium or Chrome binary)" >&2
exit 1
