# Sourced by ./mvnw and the bin/ scripts: points JAVA_HOME at a JDK >= 21.
# Order: $JAVA_HOME if it is new enough, else the newest JDK >= 21 under /usr/lib/jvm
# (or $DOCKET_JVM_DIR), else the `java` on PATH; fails with a clear message otherwise.

docket_java_major() {
  "$1/bin/java" -XshowSettings:properties -version 2>&1 \
    | sed -n 's/^ *java\.specification\.version = \([0-9][0-9]*\).*/\1/p' | head -n 1
}

docket_find_jdk() {
  if [ -n "${JAVA_HOME-}" ] && [ -x "$JAVA_HOME/bin/javac" ]; then
    major=$(docket_java_major "$JAVA_HOME")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then
      return 0
    fi
  fi
  best="" best_major=0
  # ./mvnw runs with `set -f`; the directory scan needs globbing.
  case $- in *f*) restore_noglob=1; set +f ;; *) restore_noglob=0 ;; esac
  for home in "${DOCKET_JVM_DIR:-/usr/lib/jvm}"/*; do
    [ -x "$home/bin/javac" ] || continue
    major=$(docket_java_major "$home")
    if [ -n "$major" ] && [ "$major" -ge 21 ] && [ "$major" -gt "$best_major" ]; then
      best="$home" best_major="$major"
    fi
  done
  [ "$restore_noglob" = 0 ] || set -f
  if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
    home=$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")
    major=$(docket_java_major "$home")
    if [ -n "$major" ] && [ "$major" -ge 21 ]; then
      best="$home"
    fi
  fi
  if [ -z "$best" ]; then
    echo "docket: no JDK 21 or newer found (JAVA_HOME=${JAVA_HOME:-unset}, searched ${DOCKET_JVM_DIR:-/usr/lib/jvm} and PATH)." >&2
    echo "docket: install one (e.g. apt-get install openjdk-21-jdk) or set JAVA_HOME to it." >&2
    return 1
  fi
  JAVA_HOME="$best"
  export JAVA_HOME
}

docket_find_jdk || exit 1
