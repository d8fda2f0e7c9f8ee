#!/usr/bin/env bash
# Approves every pending role request on an abcictl server with abcictl's own
# commands: `role-requests list --status pending`, then `role-requests approve`
# for each one, which mints the role token. One line per request on stdout;
# exits 1 when any approval failed (the others are still approved; approving
# again is safe).
#
#   ABCICTL_SERVER=https://abci.example.org ADMIN_EMAIL=admin@example.org \
#   ADMIN_PASSWORD_FILE=/etc/abcictl/admin.pw examples/approve-pending.sh [--dry-run]
#
# Logs in as the admin with the password from the file (abcictl reads it: it
# is never on a command line) into a session of this run only, logged out and
# removed at the end. ABCICTL names the abcictl to run (default: the one on PATH).
set -euo pipefail

dry_run=false
case "${1:-}" in
    --dry-run) dry_run=true ;;
    "") ;;
    *) echo "usage: $0 [--dry-run]" >&2; exit 2 ;;
esac
server=${ABCICTL_SERVER:-http://127.0.0.1:8080}
abcictl=${ABCICTL:-abcictl}
# The messages say what to set; an apostrophe in them would end bash's quoting
# inside "${…:?…}", and a bare $ADMIN_PASSWORD_FILE under set -u only says "unbound variable".
if [ -z "${ADMIN_EMAIL:-}" ]; then
    echo "approve-pending: set ADMIN_EMAIL to the e-mail of an admin of $server" >&2
    exit 2
fi
if [ -z "${ADMIN_PASSWORD_FILE:-}" ]; then
    echo "approve-pending: set ADMIN_PASSWORD_FILE to a file (mode 0600) holding the password of $ADMIN_EMAIL" >&2
    exit 2
fi

# The session lives in a state directory of this run, not in the caller's.
XDG_STATE_HOME=$(mktemp -d)
export XDG_STATE_HOME
cli() { "$abcictl" --no-input --color never --server "$server" "$@"; }
trap 'cli logout >/dev/null 2>&1 || true; rm -rf "$XDG_STATE_HOME"' EXIT

cli login --email "$ADMIN_EMAIL" --password-file "$ADMIN_PASSWORD_FILE" >/dev/null ||
    { echo "approve-pending: cannot log in to $server as $ADMIN_EMAIL" >&2; exit 1; }

list=$(cli role-requests list --status pending) ||
    { echo "approve-pending: cannot list the role requests" >&2; exit 1; }
# A table: a header line, then ID STATUS ROLE WALLET CHAIN … (none of these has a space).
pending=$(tail -n +2 <<<"$list")
if [ -z "$pending" ]; then
    echo "no pending role requests"
    exit 0
fi

failed=0
while read -r id _ role wallet chain _; do
    if $dry_run; then
        echo "pending  $id  $role  $wallet  $chain"
        continue
    fi
    # abcictl's one-line error, if any, goes to stderr as it is.
    if tx=$(cli -q role-requests approve "$id" </dev/null); then
        echo "approved $id  $role  $wallet  $chain  $tx"
    else
        echo "FAILED   $id  $role  $wallet  $chain" >&2
        failed=1
    fi
done <<<"$pending"
exit "$failed"
