# Sourced by the bin/ scripts after find-jdk.sh: ensure_jar JAR MODULE MESSAGE builds MODULE (and what
# it depends on) with the Maven Wrapper when JAR is missing or older than any pom or main source. It skips
# the sources and Javadoc jars and the SBOM, which only a release needs.
ensure_jar() {
  local jar="$1" module="$2" message="$3"
  if [ ! -f "$jar" ] || [ -n "$(find "$root/pom.xml" "$root"/docket-*/pom.xml "$root"/docket-*/src/main -newer "$jar" -print -quit)" ]; then
    echo "$message" >&2
    "$root/mvnw" -q -B -ntp -DskipTests -Dmaven.source.skip -Dmaven.javadoc.skip -Dcyclonedx.skip -pl "$module" -am package >&2
  fi
}
