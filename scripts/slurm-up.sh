#!/bin/sh
# Bring up a single-node SLURM with accounting (slurmdbd + MariaDB) on this Debian machine, as root.
# Idempotent: installs what is missing, writes the configs, starts each daemon that is not running and
# restarts one that runs with a config this script changed (another cluster name, say), waits until the
# node accepts jobs, then until accounting (sacct) lists a test job.  Used by `make test-slurm`.
# Accounting is needed: without it submitit cannot see that a cancelled job ended and waits forever.
set -eu
trap '[ $? = 0 ] || echo "slurm-up.sh: failed (see /var/log/slurm/)" >&2' EXIT
[ "$(id -u)" = 0 ] || { echo "slurm-up.sh: run as root" >&2; exit 2; }
export DEBIAN_FRONTEND=noninteractive
HOST=$(hostname -s)
CPUS=$(nproc)
MEM=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)   # MiB, leave room for the daemons
CLUSTER=mfx

if ! command -v slurmctld >/dev/null || ! command -v slurmdbd >/dev/null || ! command -v munged >/dev/null \
    || ! command -v mariadbd >/dev/null; then
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends slurm-wlm slurmdbd munge mariadb-server slurm-client >/dev/null
fi

running() { pgrep -x "$1" >/dev/null; }

# stop NAME: end the running daemon NAME (by its pids) and wait until it is gone
stop() {
  for pid in $(pgrep -x "$1"); do kill "$pid" 2>/dev/null || true; done
  for _ in $(seq 30); do running "$1" || return 0; sleep 1; done
  for pid in $(pgrep -x "$1"); do kill -9 "$pid" 2>/dev/null || true; done
}

# install_conf FILE: put the config read on stdin at FILE; say "changed" if it differs from what was there
install_conf() {
  cat >"$1.new"
  if [ -f "$1" ] && cmp -s "$1" "$1.new"; then rm -f "$1.new"; else mv "$1.new" "$1"; echo changed; fi
}

# munge: the key the daemons authenticate with
[ -s /etc/munge/munge.key ] || { dd if=/dev/urandom bs=1 count=1024 of=/etc/munge/munge.key 2>/dev/null; }
chown munge:munge /etc/munge/munge.key && chmod 400 /etc/munge/munge.key
mkdir -p /run/munge && chown munge:munge /run/munge
running munged || runuser -u munge -- /usr/sbin/munged

# MariaDB: the accounting database
mkdir -p /run/mysqld && chown mysql:mysql /run/mysqld
if ! running mariadbd; then
  (cd / && nohup /usr/bin/mysqld_safe >/dev/null 2>&1 &)
  for _ in $(seq 60); do mysqladmin ping >/dev/null 2>&1 && break; sleep 1; done
fi
mysql -e "CREATE DATABASE IF NOT EXISTS slurm_acct_db;
  CREATE USER IF NOT EXISTS 'slurm'@'localhost' IDENTIFIED BY 'slurm';
  GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost'; FLUSH PRIVILEGES;"

# configs
mkdir -p /etc/slurm /var/spool/slurmctld /var/spool/slurmd /var/log/slurm /run/slurm
chown slurm:slurm /var/spool/slurmctld /var/log/slurm /run/slurm
old_cluster=$(sed -n 's/^ClusterName=//p' /etc/slurm/slurm.conf 2>/dev/null || true)
dbd_changed=$(install_conf /etc/slurm/slurmdbd.conf <<EOF
AuthType=auth/munge
DbdHost=localhost
SlurmUser=slurm
StorageType=accounting_storage/mysql
StorageHost=localhost
StorageUser=slurm
StoragePass=slurm
StorageLoc=slurm_acct_db
LogFile=/var/log/slurm/slurmdbd.log
PidFile=/run/slurm/slurmdbd.pid
EOF
)
chown slurm:slurm /etc/slurm/slurmdbd.conf && chmod 600 /etc/slurm/slurmdbd.conf
conf_changed=$(install_conf /etc/slurm/slurm.conf <<EOF
ClusterName=$CLUSTER
SlurmctldHost=$HOST
SlurmUser=slurm
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=/var/spool/slurmctld
SlurmdSpoolDir=/var/spool/slurmd
SlurmctldPidFile=/run/slurm/slurmctld.pid
SlurmdPidFile=/run/slurm/slurmd.pid
SlurmctldLogFile=/var/log/slurm/slurmctld.log
SlurmdLogFile=/var/log/slurm/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
SchedulerType=sched/backfill
ReturnToService=2
KillWait=5
MinJobAge=300
SlurmctldTimeout=30
SlurmdTimeout=30
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
NodeName=$HOST CPUs=$CPUS RealMemory=$MEM State=UNKNOWN
PartitionName=debug Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
)
rm -f /etc/slurm/cgroup.conf   # no cgroups in a container: proctrack/linuxproc, task/none

# a daemon already running read the old config: restart it (a new cluster name also needs slurmctld's
# saved state of the old cluster moved aside, or slurmctld refuses to start)
if [ -n "$dbd_changed" ] && running slurmdbd; then
  echo "slurm-up.sh: slurmdbd.conf changed: restarting slurmdbd"
  stop slurmdbd
fi
if [ -n "$conf_changed" ]; then
  for d in slurmctld slurmd; do
    if running $d; then echo "slurm-up.sh: slurm.conf changed: restarting $d"; stop $d; fi
  done
  if [ -n "$old_cluster" ] && [ "$old_cluster" != "$CLUSTER" ] && [ -e /var/spool/slurmctld/clustername ]; then
    mv /var/spool/slurmctld "/var/spool/slurmctld.$old_cluster.$(date +%s)"
    mkdir -p /var/spool/slurmctld && chown slurm:slurm /var/spool/slurmctld
  fi
fi
running slurmdbd || /usr/sbin/slurmdbd
for _ in $(seq 60); do sacctmgr -n list cluster >/dev/null 2>&1 && break; sleep 1; done
sacctmgr -n -P list cluster format=cluster | grep -qx "$CLUSTER" || sacctmgr -i add cluster "$CLUSTER" >/dev/null
running slurmctld || /usr/sbin/slurmctld
running slurmd || /usr/sbin/slurmd
for _ in $(seq 60); do
  state=$(sinfo -h -n "$HOST" -o %t 2>/dev/null || true)
  case "$state" in idle|mix|alloc) break ;; down*|drain*) scontrol update nodename="$HOST" state=resume 2>/dev/null || true ;; esac
  sleep 1
done
state=$(sinfo -h -n "$HOST" -o %t 2>/dev/null || true)
case "$state" in
  idle|mix|alloc) ;;
  *) echo "slurm-up.sh: node $HOST is '$state' (see /var/log/slurm/)" >&2; exit 1 ;;
esac
# the daemons must answer for this cluster, and accounting must see a job end (submitit waits on it)
running_cluster=$(scontrol show config 2>/dev/null | sed -n 's/^ClusterName *= *//p')
if [ "$running_cluster" != "$CLUSTER" ]; then
  echo "slurm-up.sh: slurmctld runs cluster '$running_cluster', not '$CLUSTER' (see /var/log/slurm/)" >&2
  exit 1
fi
job=$(sbatch --parsable -J slurm-up-check -o /dev/null -t 1 --wrap true 2>/dev/null | cut -d';' -f1 || true)
[ -n "$job" ] || { echo "slurm-up.sh: sbatch refused a test job (see /var/log/slurm/)" >&2; exit 1; }
seen=""
for _ in $(seq 90); do
  if sacct -n -X -P -j "$job" -o State 2>/dev/null | grep -q COMPLETED; then seen=1; break; fi
  sleep 1
done
if [ -z "$seen" ]; then
  echo "slurm-up.sh: accounting (sacct) does not list the test job $job as completed (see /var/log/slurm/)" >&2
  exit 1
fi
echo "slurm-up.sh: SLURM up on $HOST ($CPUS CPUs, accounting via slurmdbd, cluster $CLUSTER; test job $job in sacct)"
