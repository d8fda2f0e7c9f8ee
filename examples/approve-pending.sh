#!/usr/bin/env bash
# Approves every pending role request on an abcictl server: lists them
# (GET /v1/admin/role-requests?status=pending), then approves each one
# (PUT /v1/admin/role-requests/{id}/approve), which mints the role token.
# One line per request on stdout; exits 1 when any approval failed (the
# others are still approved; approving again is safe).
#
#   ABCICTL_SERVER=https://abci.example.org ADMIN_EMAIL=admin@example.org \
#   ADMIN_PASSWORD_FILE=/etc/abcictl/admin.pw examples/approve-pending.sh [--dry-run]
#
# Logs in as the admin with the password from the file: the password and the
# access token reach curl on stdin, never on its command line (ps shows that).
# Needs curl and jq.
set -euo pipefail

dry_run=false
case "${1:-}" in
    --dry-run) dry_run=true ;;
    "") ;;
    *) echo "usage: $0 [--dry-run]" >&2; exit 2 ;;
esac
server=${ABCICTL_SERVER:-http://127.0.0.1:8080}
server=${server%/}
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

# curl with the admin's token as a header read from stdin.
api() {
    printf 'Authorization: Bearer %s\n' "$token" | curl -sS --fail-with-body -H @- "$@"
}

token=$(jq -n --arg email "$ADMIN_EMAIL" --rawfile password "$ADMIN_PASSWORD_FILE" \
            '{email: $email, password: ($password | rtrimstr("\n"))}' |
        curl -sS --fail-with-body -H 'Content-Type: application/json' --data-binary @- \
            "$server/api/auth/login-email-password" | jq -er .token) ||
    { echo "approve-pending: cannot log in to $server as $ADMIN_EMAIL" >&2; exit 1; }

list=$(api "$server/v1/admin/role-requests?status=pending") ||
    { echo "approve-pending: cannot list the role requests: $list" >&2; exit 1; }
pending=$(jq -r '.data[] | [.id, .roleType, .walletAddress, .blockchainId] | @tsv' <<<"$list")
if [ -z "$pending" ]; then
    echo "no pending role requests"
    exit 0
fi

failed=0
while IFS=$'\t' read -r id role wallet chain; do
    if $dry_run; then
        echo "pending  $id  $role  $wallet  $chain"
        continue
    fi
    if answer=$(api -X PUT -d '' "$server/v1/admin/role-requests/$id/approve"); then
        tx=$(jq -r '.data.roleRequest.transactionHash // "-"' <<<"$answer")
        echo "approved $id  $role  $wallet  $chain  $tx"
    else
        echo "FAILED   $id  $role  $wallet  $chain  $(jq -r '.message // .error // .' <<<"$answer" 2>/dev/null || echo "$answer")" >&2
        failed=1
    fi
done <<<"$pending"
exit "$failed"
