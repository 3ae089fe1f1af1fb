#!/usr/bin/env bash
# The JDK 25 that Fray's prepare-fray links its instrumented JDK from (the fray profile of this module's POM calls this
# in validate): OUT/bin/java and OUT/bin/jlink for the JDK at $JDK25_HOME (default: /usr/lib/jvm/temurin-25-jdk-amd64).
#
# Fray 0.9.2 runs `jlink --add-modules=ALL-MODULE-PATH --module-path=JDK/jmods`. A JDK with jmods/ is used as it is.
# Temurin 25 ships without jmods/ (its jlink links from the run-time image, JEP 493), and that call then finds no
# module ("No module found in module path .../jmods"): OUT/bin/jlink is a wrapper that names the JDK's modules instead
# (all but jdk.jlink and jdk.jpackage, which a run-time image link cannot include) and drops the jmods module path.
set -euo pipefail
out=${1:?usage: fray-jdk.sh OUT}
jdk=${JDK25_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}
if [ ! -x "$jdk/bin/jlink" ]; then
    echo "fray-jdk.sh: no JDK at $jdk; set JDK25_HOME to a JDK 25" >&2
    exit 1
fi
rm -rf "$out"
mkdir -p "$out/bin"
ln -s "$jdk/bin/java" "$out/bin/java"
if [ -d "$jdk/jmods" ]; then
    ln -s "$jdk/jmods" "$out/jmods"
    ln -s "$jdk/bin/jlink" "$out/bin/jlink"
    exit 0
fi
modules=$("$jdk/bin/java" --list-modules | sed 's/@.*//' | grep -v -x -e jdk.jlink -e jdk.jpackage | paste -sd, -)
cat > "$out/bin/jlink" <<WRAPPER
#!/bin/sh
# written by lock-verification/fray-jdk.sh: Fray's jlink call, linked from the run-time image of $jdk
for arg in "\$@"; do
    case "\$arg" in
        --add-modules=ALL-MODULE-PATH) set -- "\$@" "--add-modules=$modules" ;;
        --module-path=*/jmods) ;;
        *) set -- "\$@" "\$arg" ;;
    esac
    shift
done
exec "$jdk/bin/jlink" "\$@"
WRAPPER
chmod +x "$out/bin/jlink"
