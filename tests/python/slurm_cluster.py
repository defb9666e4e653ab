"""A one-node Slurm cluster for a test, on this machine, started and stopped by the test:
munged + slurmctld + slurmd from Debian's packages (scripts/install-deps --slurm), run as root in
the foreground (no systemd), with their key, configuration, state, spool, sockets and logs under
one temporary folder and ports of their own, so that nothing of a system Slurm or MUNGE is read
or touched.

    with SlurmCluster() as cluster:
        subprocess.run(["sbatch", ...], env=cluster.env)

Leaving the block stops everything it started, by PID, on failure too: the jobs (scancel), then
slurmd, slurmctld and munged (SIGTERM, then SIGKILL after a grace period: slurmd may ignore
SIGTERM while it retries a dead controller), then any process left whose working folder is under
the temporary folder (a job's slurmstepd). The daemons also get SIGKILL if this process dies
first (PR_SET_PDEATHSIG).
"""

import ctypes
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time

DAEMONS = ("munged", "slurmctld", "slurmd")
CLIENTS = ("sbatch", "squeue", "scancel", "sinfo")


class ClusterError(RuntimeError):
    """The cluster did not come up; the message says which daemon and ends with its log."""


def _program(name):
    """The program's path; the daemons live in /usr/sbin, which a user's PATH may lack."""
    return shutil.which(name, path=os.environ.get("PATH", "") + ":/usr/sbin:/sbin")


def missing_programs():
    """The Slurm and MUNGE programs this module needs that are not installed."""
    return [p for p in DAEMONS + CLIENTS if _program(p) is None]


def _free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _die_with_parent():
    # Runs in the child between fork and exec: SIGKILL when the test process dies.
    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)


def _tail(path, lines=15):
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return "(no log)"


class SlurmCluster:
    def __init__(self, gpus=0, grace_s=5.0):
        # gpus > 0: the node offers that many GPUs as Slurm GRES (GresTypes=gpu, gres.conf), each
        # "device" a placeholder file, so that jobs asking for --gres=gpu:1 are scheduled as on a
        # GPU cluster. No CUDA device is behind them.
        self.gpus = gpus
        self.grace_s = grace_s
        self.dir = None
        self.env = None
        self.processes = {}  # name -> Popen
        self.left_after_stop = []  # what stop() could not end (PIDs): should stay empty

    # -- starting ---------------------------------------------------------------------------
    def __enter__(self):
        try:
            self._start()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, *exc):
        self.stop()
        return False

    def _start(self):
        # MUNGE requires every folder above its socket to be searchable by all, which pytest's
        # tmp_path (0700) is not.
        self.dir = tempfile.mkdtemp(prefix="memrel-slurm-")
        os.chmod(self.dir, 0o755)
        d = self.dir
        for sub in ("state", "spool"):
            os.mkdir(os.path.join(d, sub), 0o755)
        key = os.path.join(d, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o400)
        self.munge_socket = os.path.join(d, "munge.socket")
        self.conf = os.path.join(d, "slurm.conf")
        self.node = socket.gethostname().split(".")[0]
        with open(self.conf, "w", encoding="utf-8") as f:
            f.write(self._slurm_conf())
        if self.gpus:
            for i in range(self.gpus):
                open(os.path.join(d, f"gpu{i}"), "w").close()
            with open(os.path.join(d, "gres.conf"), "w", encoding="utf-8") as f:
                f.write(f"NodeName={self.node} Name=gpu File={d}/gpu[0-{self.gpus - 1}]\n")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        # Site settings of the caller's environment must not reach this cluster.
        for name in list(self.env):
            if name.startswith(("SBATCH_", "SLURM_")) and name != "SLURM_CONF":
                del self.env[name]

        self._spawn("munged", [_program("munged"), "--foreground", "--force",
                               f"--socket={self.munge_socket}", f"--key-file={key}",
                               f"--pid-file={d}/munged.pid", f"--log-file={d}/munged.log",
                               f"--seed-file={d}/munged.seed"])
        self._wait_for(lambda: os.path.exists(self.munge_socket), "munged", f"{d}/munged.log")
        self._spawn("slurmctld", [_program("slurmctld"), "-D", "-f", self.conf])
        self._spawn("slurmd", [_program("slurmd"), "-D", "-f", self.conf, "-N", self.node])
        self._wait_for(self._node_idle, "slurmd", f"{d}/slurmd.log", timeout_s=30)

    def _slurm_conf(self):
        d = self.dir
        # The node as slurmd sees this machine (CPUs, sockets, memory), so that it is not drained
        # for claiming more than there is.
        hardware = subprocess.run([_program("slurmd"), "-C"], capture_output=True, text=True,
                                  check=True).stdout.splitlines()[0]
        hardware = " ".join(w for w in hardware.split() if not w.startswith("NodeName="))
        return f"""\
ClusterName=memreltest
SlurmctldHost={self.node}(127.0.0.1)
SlurmctldPort={_free_port()}
SlurmdPort={_free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket={self.munge_socket}
StateSaveLocation={d}/state
SlurmdSpoolDir={d}/spool
SlurmctldPidFile={d}/slurmctld.pid
SlurmdPidFile={d}/slurmd.pid
SlurmctldLogFile={d}/slurmctld.log
SlurmdLogFile={d}/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
# sbatch --wait and dependent jobs see a finished job at once: no batching delay, and finished
# jobs are forgotten after 2 s (MinJobAge >= 10 makes sbatch --wait poll slowly).
SchedulerParameters=batch_sched_delay=0
MinJobAge=2
{f"GresTypes=gpu" if self.gpus else ""}
NodeName={self.node} NodeAddr=127.0.0.1 {hardware} {f"Gres=gpu:{self.gpus}" if self.gpus else ""} State=UNKNOWN
PartitionName=memrel Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""

    def _spawn(self, name, argv):
        log = open(os.path.join(self.dir, f"{name}.out"), "wb")
        try:
            self.processes[name] = subprocess.Popen(
                argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=self.env,
                cwd=self.dir, preexec_fn=_die_with_parent, start_new_session=True)
        finally:
            log.close()

    def _wait_for(self, ready, name, log, timeout_s=10):
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            for n, p in self.processes.items():
                if p.poll() is not None:
                    raise ClusterError(f"{n} exited with {p.returncode}:\n"
                                       f"{_tail(os.path.join(self.dir, n + '.out'))}")
            if ready():
                return
            time.sleep(0.1)
        raise ClusterError(f"{name} not ready after {timeout_s} s:\n{_tail(log)}")

    def _node_idle(self):
        r = subprocess.run(["sinfo", "-h", "-N", "-o", "%T"], capture_output=True, text=True,
                           env=self.env, timeout=10)
        return r.returncode == 0 and r.stdout.strip() == "idle"

    # -- stopping ---------------------------------------------------------------------------
    def stop(self):
        """Stops everything started, by PID; safe to call more than once and after a failed
        start. Returns the PIDs that needed SIGKILL; left_after_stop lists any still there."""
        killed = []
        if self.processes.get("slurmctld") and self.processes["slurmctld"].poll() is None:
            subprocess.run(["scancel", "--full", "--quiet", "--partition=memrel"], env=self.env,
                           capture_output=True, timeout=10)
            deadline = time.monotonic() + self.grace_s
            while time.monotonic() < deadline and self._jobs_left():
                time.sleep(0.2)
        for name in ("slurmd", "slurmctld", "munged"):
            p = self.processes.get(name)
            if p is None or p.poll() is not None:
                continue
            p.terminate()
            try:
                p.wait(self.grace_s)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
                killed.append(p.pid)
        if self.dir:
            for pid in self.processes_left():
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except ProcessLookupError:
                    pass
            time.sleep(0.1)
            self.left_after_stop = self.processes_left()
            shutil.rmtree(self.dir, ignore_errors=True)
        self.processes = {}
        self.dir = None
        return killed

    def _jobs_left(self):
        r = subprocess.run(["squeue", "-h", "-o", "%i"], capture_output=True, text=True,
                           env=self.env, timeout=10)
        return r.returncode == 0 and r.stdout.strip() != ""

    def processes_left(self):
        """PIDs of the processes of this cluster still running, this process excluded: those
        whose environment names its slurm.conf (the daemons, a job's slurmstepd, the job's
        script and everything they started inherit it) or whose working folder is under its
        temporary folder."""
        if not self.dir:
            return []
        folder = os.path.realpath(self.dir)
        marker = f"SLURM_CONF={self.conf}".encode()
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit() or int(entry) == os.getpid():
                continue
            try:
                with open(f"/proc/{entry}/environ", "rb") as f:
                    environment = f.read().split(b"\0")
                cwd = os.readlink(f"/proc/{entry}/cwd")
            except OSError:
                continue  # gone, or a zombie
            if marker in environment or cwd == folder or cwd.startswith(folder + "/"):
                found.append(int(entry))
        return found

    def log(self, name):
        return _tail(os.path.join(self.dir, name), lines=40) if self.dir else ""
