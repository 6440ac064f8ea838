#!/usr/bin/env bash
# Runs the host-code programs (tests/host/programs/*.cj) on the GPU machine as native executables
# (`cajeta build --exe`), which need only libcajeta_xpu.so there (no LLVM), on each backend.
#
#   scripts/device-host.sh prepare [BUILD]   here (LLVM present): builds cajeta in BUILD (default
#       build) and every program with --exe into BUILD/host-carry/, beside a copy of
#       libcajeta_xpu.so (debug info stripped) and its libxxhash (the executables find the
#       runtime through their $ORIGIN run path, the runtime finds libxxhash through its own);
#       expect/ holds each program's X.out, X.rc and X.err. The code is built for CPU
#       $CAJETA_HOST_CPU (default x86-64-v3), not this machine's: host code and the CPU payload
#       then run on the GPU machine's CPU too.
#   scripts/device-host.sh run [CARRY] [BACKEND...]   on the GPU machine (no LLVM; here too):
#       runs each executable with CAJETA_XPU_BACKEND set to each BACKEND (default: cuda vulkan
#       cpu), compares stdout with X.out, the exit status with X.rc (0 when absent) and stderr with
#       the lines of X.err, as tests/host/RunHost.cmake does. Unpacks the Vulkan loader from .gl/
#       when the machine has none (scripts/device-test.sh's header says how to fetch it).
#       $OUT/host-summary.txt gets one line per backend and program and every failure's detail;
#       it is printed too. Each run's stdout and stderr are in $OUT/host/<backend>/.
#
# On the device machine (the `run` tool) from the repository root:
#   command: scripts/device-host.sh run build/host-carry
#   carry:   ["build/host-carry", ".gl"]
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
MODE=${1:-}
PROGRAMS=$ROOT/tests/host/programs

prepare() {
  local Build=${1:-build}
  [[ $Build = /* ]] || Build="$ROOT/$Build"
  local Carry="$Build/host-carry" Cpu=${CAJETA_HOST_CPU:-x86-64-v3}
  cmake --build "$Build" -j "${JOBS:-1}" --target cajeta || return 1
  rm -rf "$Carry" && mkdir -p "$Carry/expect" || return 1
  local Rc=0 Program Name
  for Program in "$PROGRAMS"/*.cj; do
    Name=$(basename "$Program" .cj)
    # From the programs' folder, so failures name X.cj as `cajeta run X.cj` there would.
    if (cd "$PROGRAMS" && "$Build/bin/cajeta" build --exe --cpu "$Cpu" "$Name.cj" \
      -o "$Carry/$Name") > "$Carry/expect/$Name.build.log" 2>&1; then
      strip --strip-debug "$Carry/$Name" || Rc=1
    else
      echo "cajeta build --exe $Name.cj failed:"
      cat "$Carry/expect/$Name.build.log"
      Rc=1
    fi
    cp "$PROGRAMS/$Name".{out,rc,err,args} "$Carry/expect/" 2>/dev/null
  done
  strip --strip-debug -o "$Carry/libcajeta_xpu.so" "$Build/lib/libcajeta_xpu.so" || return 1
  local Xxhash
  Xxhash=$(ldd "$Build/lib/libcajeta_xpu.so" | awk '/libxxhash/ {print $3}')
  if [[ -n $Xxhash ]]; then cp -L "$Xxhash" "$Carry/" || return 1; fi
  {
    echo "cpu: $Cpu"
    echo "compiler: $("$Build/bin/cajeta" --version)"
    echo "built: $(date -u +%Y-%m-%dT%H:%M:%SZ) on $(uname -n)"
  } > "$Carry/expect/carry.txt"
  du -sh "$Carry"
  local Rel=${Carry#"$ROOT"/}
  echo "carry $Rel; on the device: scripts/device-host.sh run $Rel (carry [\"$Rel\", \".gl\"])"
  return $Rc
}

# Compares one run with the expectations of Name; prints why it differs (nothing when it
# matches) and returns 1 when it does.
check() {
  local Expect=$1 Name=$2 Rc=$3 Stdout=$4 Stderr=$5
  local WantRc=0 Bad=0 Line
  [[ -f $Expect/$Name.rc ]] && WantRc=$(head -n 1 "$Expect/$Name.rc")
  if [[ $Rc != "$WantRc" ]]; then
    echo "    exit status $Rc, expected $WantRc"
    Bad=1
  fi
  if [[ -f $Expect/$Name.out ]]; then
    if ! cmp -s "$Expect/$Name.out" "$Stdout"; then
      echo "    stdout differs:"
      diff "$Expect/$Name.out" "$Stdout" | head -n 10 | sed 's/^/      /'
      Bad=1
    fi
  elif [[ -s $Stdout ]]; then
    echo "    stdout should be empty; got:"
    head -n 5 "$Stdout" | sed 's/^/      /'
    Bad=1
  fi
  if [[ -f $Expect/$Name.err ]]; then
    while IFS= read -r Line || [[ -n $Line ]]; do
      [[ -z $Line ]] && continue
      if ! grep -qF -- "$Line" "$Stderr"; then
        echo "    stderr lacks: $Line"
        Bad=1
      fi
    done < "$Expect/$Name.err"
  fi
  if ((Bad)) && [[ -s $Stderr ]]; then
    echo "    stderr:"
    head -n 8 "$Stderr" | sed 's/^/      /'
  fi
  return $Bad
}

run() {
  local Carry=${1:-build/host-carry}
  shift
  local Backends=("$@")
  ((${#Backends[@]})) || Backends=(cuda vulkan cpu)
  [[ $Carry = /* ]] || Carry="$ROOT/$Carry"
  local Out=${OUT:-$ROOT/device-results}
  mkdir -p "$Out"
  local Summary="$Out/host-summary.txt"
  [[ -d $Carry/expect ]] || { echo "no $Carry/expect: run 'prepare' first" | tee "$Summary"; return 1; }
  # The Vulkan loader (and libglvnd, which NVIDIA's ICD needs) when the machine has none.
  if ! ldconfig -p 2>/dev/null | grep -q 'libvulkan.so.1'; then
    for f in "$ROOT"/.gl/*.deb; do [[ -f $f ]] && dpkg -x "$f" /; done
    ldconfig 2>/dev/null
  fi
  local Icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
  if [[ -z ${VK_DRIVER_FILES:-} && -f $Icd ]]; then export VK_DRIVER_FILES=$Icd; fi
  local Exes=() Name
  for Name in "$Carry"/expect/*.build.log; do
    Name=$(basename "$Name" .build.log)
    [[ -x $Carry/$Name ]] && Exes+=("$Name")
  done
  local Details
  Details=$(mktemp)
  {
    echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
    echo "host: $(uname -n)"
    nvidia-smi --query-gpu=name,driver_version,compute_cap --format=csv,noheader 2>&1 | head -n 4
    sed 's/^/carry /' "$Carry/expect/carry.txt" 2>/dev/null
    echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-unset}"
    if ((${#Exes[@]})); then
      echo "${Exes[0]} loads: $(ldd "$Carry/${Exes[0]}" 2>&1 | awk '/cajeta|xxhash|not found/ {print $1, $2, $3}' | tr '\n' ' ')"
    fi
  } > "$Summary"
  local Rc=0 Backend Pass Fail Failed Dir
  for Backend in "${Backends[@]}"; do
    Dir="$Out/host/$Backend"
    mkdir -p "$Dir"
    Pass=0 Fail=0 Failed=""
    for Name in "${Exes[@]}"; do
      local Status=0 Args=()
      [[ -f $Carry/expect/$Name.args ]] && mapfile -t Args < "$Carry/expect/$Name.args"
      CAJETA_XPU_BACKEND=$Backend timeout "${HOST_TIMEOUT:-120}" "$Carry/$Name" "${Args[@]}" \
        > "$Dir/$Name.stdout" 2> "$Dir/$Name.stderr" || Status=$?
      local Why
      if Why=$(check "$Carry/expect" "$Name" "$Status" "$Dir/$Name.stdout" "$Dir/$Name.stderr"); then
        Pass=$((Pass + 1))
      else
        Fail=$((Fail + 1))
        Failed+=" $Name"
        printf 'FAILED %s (CAJETA_XPU_BACKEND=%s)\n%s\n' "$Name" "$Backend" "$Why" >> "$Details"
      fi
    done
    echo "$Backend: $Pass passed, $Fail failed of ${#Exes[@]}${Failed:+ (failed:$Failed)}" >> "$Summary"
    ((Fail)) && Rc=1
  done
  # Programs whose executable was not built are failures too.
  for Name in "$Carry"/expect/*.build.log; do
    Name=$(basename "$Name" .build.log)
    if [[ ! -x $Carry/$Name ]]; then
      echo "not built: $Name" >> "$Summary"
      Rc=1
    fi
  done
  cat "$Details" >> "$Summary"
  rm -f "$Details"
  echo "exit status: $Rc" >> "$Summary"
  cat "$Summary"
  return $Rc
}

case $MODE in
prepare) shift; prepare "$@" ;;
run) shift; run "$@" ;;
*) sed -n '2,23p' "$0"; exit 2 ;;
esac
