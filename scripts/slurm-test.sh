#!/usr/bin/env bash
# A real Slurm test: installs Debian's slurm-wlm and munge (if missing), starts a one-node
# cluster (munged, slurmctld, slurmd; generated slurm.conf in a temporary folder; as root),
# submits a sweep with the scripts `incastsim slurm` writes (a job array of shards, then the
# merge job with --dependency=afterok), waits, and checks that the merged summary.csv, runs.csv
# and flows.csv are byte-identical to a local sweep of the same config. Stops the daemons it
# started (by pid) on exit.
#
#   scripts/slurm-test.sh [path/to/incastsim]     (default: target/release/incastsim)
#
# Exit status 0: passed; 1: failed; 77: Slurm cannot run here (not root, no apt-get).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
bin=$(realpath "${1:-target/release/incastsim}")
started=$(date +%s)

if [ "$(id -u)" -ne 0 ]; then
  echo "slurm-test: needs root (it starts slurmctld/slurmd and munged): skipped"
  exit 77
fi
if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null || ! command -v munged >/dev/null; then
  command -v apt-get >/dev/null || { echo "slurm-test: no apt-get to install slurm-wlm: skipped"; exit 77; }
  echo "slurm-test: installing slurm-wlm and munge"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends slurm-wlm munge >/dev/null
fi
[ -x "$bin" ] || { echo "slurm-test: no incastsim binary at $bin"; exit 1; }

tmp=$(mktemp -d /tmp/incastsim-slurm.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
  done
  for pid in "${pids[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$tmp"
}
trap cleanup EXIT

# munge: a fresh key and socket in the temporary folder.
mkdir -p "$tmp/munge" "$tmp/state" "$tmp/spool" "$tmp/log"
chmod 700 "$tmp/munge"
dd if=/dev/urandom of="$tmp/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$tmp/munge/munge.key"
munged --force --key-file="$tmp/munge/munge.key" --socket="$tmp/munge/socket" \
  --pid-file="$tmp/munge/munged.pid" --log-file="$tmp/log/munged.log" --seed-file="$tmp/munge/seed"
for _ in $(seq 50); do [ -s "$tmp/munge/munged.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$tmp/munge/munged.pid")")

host=$(hostname -s)
cpus=$(nproc)
mem=$(awk '/MemTotal/ { printf "%d", $2 / 1024 * 0.8 }' /proc/meminfo)
export SLURM_CONF="$tmp/slurm.conf"
cat > "$SLURM_CONF" <<EOF
ClusterName=incastsim-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldPort=16817
SlurmdPort=16818
SlurmctldLogFile=$tmp/log/slurmctld.log
SlurmdLogFile=$tmp/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=$host CPUs=$cpus RealMemory=$mem State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
echo "" > "$tmp/cgroup.conf"

slurmctld -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$tmp/slurmctld.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$tmp/slurmctld.pid")")
slurmd -f "$SLURM_CONF"
for _ in $(seq 100); do [ -s "$tmp/slurmd.pid" ] && break; sleep 0.1; done
pids+=("$(cat "$tmp/slurmd.pid")")
for _ in $(seq 150); do
  sinfo -h -N -o "%T" 2>/dev/null | grep -qE "^idle" && break
  sleep 0.2
done
if ! sinfo -h -N -o "%T" | grep -qE "^idle"; then
  echo "slurm-test: the node did not come up:"; sinfo -N || true
  tail -20 "$tmp/log/slurmctld.log" "$tmp/log/slurmd.log" || true
  exit 1
fi
echo "slurm-test: one-node cluster up ($host, $cpus CPUs) after $(( $(date +%s) - started )) s"

# The sweep: S1 with 3 points x 4 seeds and 10 blocks; 4 shards of 1 CPU, then the merge.
config=configs/incast-sweep.yaml
sets=(--set sweep.seeds=4 --set 'sweep.grid={senders: [2, 8, 16]}' --set 'sweep.plots=[]' --set workload.blocks=10)
"$bin" slurm "$config" "${sets[@]}" --shards 4 --cpus-per-task 1 --partition test --time 00:10:00 \
  --out "$tmp/cluster" --incastsim "$bin"
ids=$(bash "$tmp/cluster/slurm/submit.sh")
echo "slurm-test: $ids"
merge=$(echo "$ids" | sed -E 's/.*merge: job ([0-9]+).*/\1/')
state=""
for _ in $(seq 600); do
  state=$(scontrol show job "$merge" 2>/dev/null | sed -nE 's/.*JobState=([A-Z_]+).*/\1/p')
  case "$state" in
    COMPLETED|FAILED|CANCELLED|TIMEOUT|NODE_FAIL|OUT_OF_MEMORY) break ;;
  esac
  sleep 0.5
done
if [ "$state" != COMPLETED ]; then
  echo "slurm-test: the merge job ended as '${state:-unknown}'"
  squeue || true
  tail -n 20 "$tmp"/cluster/slurm/*.log "$tmp/log/slurmctld.log" || true
  exit 1
fi
shards=$(ls -d "$tmp"/cluster/shards/shard-* | wc -l)

# The same sweep on this machine, without Slurm.
"$bin" sweep "$config" "${sets[@]}" --jobs 2 --out "$tmp/local" --no-plots >/dev/null
status=0
for f in summary.csv runs.csv flows.csv; do
  if cmp -s "$tmp/local/$f" "$tmp/cluster/$f"; then
    echo "slurm-test: $f identical ($(wc -l < "$tmp/cluster/$f") lines)"
  else
    echo "slurm-test: $f differs between the Slurm and the local sweep"; status=1
  fi
done
[ "$shards" -eq 4 ] || { echo "slurm-test: expected 4 shard folders, found $shards"; status=1; }
echo "slurm-test: $([ $status -eq 0 ] && echo passed || echo FAILED) in $(( $(date +%s) - started )) s"
exit $status
