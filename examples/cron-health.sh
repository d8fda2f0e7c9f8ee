#!/bin/sh
# A cron health check of an abcictl server: silent while it is healthy; on a
# WARNING, CRITICAL or UNKNOWN it prints the one-line verdict (which cron
# mails to MAILTO), logs it to syslog, and exits with the check's status
# (0 OK, 1 WARNING, 2 CRITICAL, 3 UNKNOWN).
#
# Needs an API key with the abci:health scope (no login):
#   abcictl admin apikey create --name cron --scope abci:health -q > /etc/abcictl/health.key
# crontab:
#   MAILTO=ops@example.org
#   */5 * * * * ABCICTL_SERVER=https://abci.example.org ABCICTL_TOKEN_FILE=/etc/abcictl/health.key /usr/local/share/abcictl/cron-health.sh
#
# Environment: ABCICTL_SERVER; ABCICTL_TOKEN, or ABCICTL_TOKEN_FILE holding it
# (keeps the key out of the crontab); HEALTH_TIMEOUT (seconds, default 10);
# HEALTH_LOG, a file to append problems to as well.
set -u

if [ -z "${ABCICTL_TOKEN:-}" ] && [ -n "${ABCICTL_TOKEN_FILE:-}" ]; then
    ABCICTL_TOKEN=$(cat "$ABCICTL_TOKEN_FILE") || exit 3
    export ABCICTL_TOKEN
fi

verdict=$(abcictl health --format nagios --timeout "${HEALTH_TIMEOUT:-10}" 2>&1)
status=$?
[ "$status" -eq 0 ] && exit 0

line="abcictl health ${ABCICTL_SERVER:-}: $verdict"
echo "$line"
if command -v logger >/dev/null 2>&1 && [ -S /dev/log ]; then
    logger -t abcictl-health -p user.err -- "$line"
fi
if [ -n "${HEALTH_LOG:-}" ]; then
    echo "$(date -u +%Y-%m-%dT%H:%M:%SZ) exit $status $line" >>"$HEALTH_LOG"
fi
exit "$status"
