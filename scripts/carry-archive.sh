# Sourced by scripts/device-test.sh and scripts/device-bench.sh: a carry travels to the GPU
# machine as one xz archive beside it (the device call takes 64 MiB of working tree and carry,
# which the bench's bundles alone pass; the archive is a seventh of that).

# CARRY.tar.xz from the folder CARRY.
packCarry() {
  local Carry=$1
  rm -f "$Carry.tar.xz"
  tar -cJf "$Carry.tar.xz" -C "$(dirname "$Carry")" "$(basename "$Carry")" || return 1
  du -h "$Carry.tar.xz"
}

# On the GPU machine: the folder CARRY afresh from CARRY.tar.xz where that came along (a folder
# left by an earlier call on the same machine may be older).
unpackCarry() {
  local Carry=$1
  [[ -f $Carry.tar.xz ]] || return 0
  rm -rf "$Carry" && tar -xJf "$Carry.tar.xz" -C "$(dirname "$Carry")"
}
