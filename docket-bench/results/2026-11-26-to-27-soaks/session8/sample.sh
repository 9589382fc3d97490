#!/bin/bash
# samples non-idle backends every 100 ms: time, pid, backend_type, wait_event_type, wait_event, query prefix
P=/usr/lib/postgresql/15/bin/psql
end=$((SECONDS+$1))
while [ $SECONDS -lt $end ]; do
  $P -h 127.0.0.1 -p 55997 -U postgres -d postgres -AtF'|' -c "SELECT to_char(clock_timestamp(),'HH24:MI:SS.MS'), pid, backend_type, coalesce(wait_event_type,'-'), coalesce(wait_event,'CPU'), left(regexp_replace(query,'\s+',' ','g'),50) FROM pg_stat_activity WHERE state NOT IN ('idle') AND pid <> pg_backend_pid() AND backend_type <> 'walsender'" 2>/dev/null
  sleep 0.1
done
