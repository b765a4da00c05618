"""Services, SQL, topics and process measurement for bench/run.

Everything here drives the project's own scripts (scripts/services, scripts/lib.sh) and the
real binaries; nothing is simulated. Process figures come from the kernel (wait4 rusage and
/proc), never from the program under test.
"""

import os
import subprocess
import time
from dataclasses import dataclass

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "scripts")


def log(msg):
    print(f"[bench] {msg}", flush=True)


def lib_value(name):
    """A variable as scripts/lib.sh computes it (PG_BIN, KAFKA_LIBS)."""
    out = subprocess.run(
        ["bash", "-c", f"source {SCRIPTS}/lib.sh; echo ${name}"],
        check=True, capture_output=True, text=True)
    return out.stdout.strip()


def read_env(path):
    env = {}
    out = subprocess.run(["bash", "-c", f"source {path}; env"], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        k, _, v = line.partition("=")
        if k.startswith("OUTBOXD_TEST_"):
            env[k] = v
    return env


class Services:
    """A throwaway Postgres and Kafka from scripts/services, stopped on close()."""

    def __init__(self, workdir, existing=None):
        """Starts services under `workdir`, or uses the running ones in `existing` (kept)."""
        self.owned = existing is None
        self.dir = existing or os.path.join(workdir, "services")
        if self.owned:
            os.makedirs(self.dir, exist_ok=True)
            os.chmod(self.dir, 0o755)
            os.chmod(workdir, 0o755)
            subprocess.run([os.path.join(SCRIPTS, "services"), "start", self.dir], check=True,
                           stderr=subprocess.DEVNULL)
        self.env = read_env(os.path.join(self.dir, "env"))
        self.pg_bin = lib_value("PG_BIN")
        self.kafka_libs = lib_value("KAFKA_LIBS")
        self.admin = self.env["OUTBOXD_TEST_PG_ADMIN_CONNINFO"]
        self.conninfo = self.env["OUTBOXD_TEST_PG_CONNINFO"]
        self.bootstrap = self.env["OUTBOXD_TEST_KAFKA_BOOTSTRAP"]
        self.poller = None  # The psql behind poll_sql.

    # --pin-broker: the broker on one core, Postgres, the load and the competitor on the other,
    # so the broker's own work cannot starve the walsender (issue 9, target 2).
    pinned = None

    def pin_broker(self, broker_cpu="0", rest_cpu="1"):
        """Pins the running Kafka JVM (all threads) and every Postgres process; new backends
        inherit the postmaster's mask. Competitors and pgbench go through wrap()."""
        with open(os.path.join(self.dir, "kafka", "pid")) as f:
            kafka = f.read().strip()
        subprocess.run(["taskset", "-a", "-p", "-c", broker_cpu, kafka], check=True,
                       stdout=subprocess.DEVNULL)
        with open(os.path.join(self.dir, "pg", "data", "postmaster.pid")) as f:
            postmaster = f.readline().strip()
        children = subprocess.run(["pgrep", "-P", postmaster], capture_output=True,
                                  text=True).stdout.split()
        for pid in [postmaster, *children]:
            subprocess.run(["taskset", "-p", "-c", rest_cpu, pid], check=True,
                           stdout=subprocess.DEVNULL)
        Services.pinned = rest_cpu
        log(f"pinned Kafka (pid {kafka}) to CPU {broker_cpu}; Postgres, load and competitors "
            f"to CPU {rest_cpu}")

    @staticmethod
    def wrap(cmd):
        """`cmd` under taskset when the broker is pinned, else unchanged."""
        return ["taskset", "-c", Services.pinned, *cmd] if Services.pinned else list(cmd)

    def close(self):
        if self.poller is not None:
            self.poller.stdin.close()
            self.poller.wait()
        if not self.owned:
            return
        subprocess.run([os.path.join(SCRIPTS, "services"), "stop", self.dir],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def sql(self, query, conninfo=None):
        """One statement through a new psql (for set-up; polls use poll_sql)."""
        out = subprocess.run(
            ["psql", conninfo or self.admin, "-v", "ON_ERROR_STOP=1", "-qAt", "-c", query],
            check=True, capture_output=True, text=True)
        return out.stdout.strip()

    def poll_sql(self, query):
        """One single-row query through a psql kept open: a poll every 20 ms then costs a
        query, not a process start (a new psql per poll took ~18% of this 2-core machine
        during a drain, against the competitor being timed)."""
        if self.poller is None or self.poller.poll() is not None:
            self.poller = subprocess.Popen(
                ["psql", self.admin, "-qAtX", "-v", "ON_ERROR_STOP=1"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, text=True, bufsize=1)
        self.poller.stdin.write(query.rstrip(";") + ";\n")
        self.poller.stdin.flush()
        line = self.poller.stdout.readline()
        if not line:
            raise RuntimeError(f"psql exited {self.poller.wait()} on: {query}")
        return line.strip()

    def kafka_tool(self, *args):
        log4j = os.path.join(self.dir, "kafka", "log4j2.properties")
        return subprocess.run(
            ["java", "-cp", f"{self.kafka_libs}/*", f"-Dlog4j2.configurationFile={log4j}",
             *args], check=True, capture_output=True, text=True).stdout

    def broker_cpu_s(self):
        """CPU-seconds the Kafka JVM has used so far."""
        with open(os.path.join(self.dir, "kafka", "pid")) as f:
            return proc_cpu_s(int(f.read().strip()))

    def create_topic(self, topic, partitions):
        self.kafka_tool("org.apache.kafka.tools.TopicCommand", "--bootstrap-server",
                        self.bootstrap, "--create", "--if-not-exists", "--topic", topic,
                        "--partitions", str(partitions), "--config",
                        "message.timestamp.type=LogAppendTime")

    def topic_offsets(self, topic):
        """Sum of the end offsets of `topic` (records appended, duplicates included)."""
        out = self.kafka_tool("org.apache.kafka.tools.GetOffsetShell", "--bootstrap-server",
                              self.bootstrap, "--topic", topic)
        return sum(int(line.rsplit(":", 1)[1]) for line in out.split() if line.count(":") >= 2)


@dataclass
class Usage:
    cpu_s: float
    peak_rss_kb: int


def proc_cpu_s(pid):
    """utime+stime of a live process, all threads, in seconds."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_busy_cpu_s():
    """Non-idle CPU-seconds of the whole machine since boot, all CPUs (/proc/stat)."""
    with open("/proc/stat") as f:
        user, nice, system, idle, iowait, irq, softirq, steal = map(int, f.readline().split()[1:9])
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def proc_status_kb(pid):
    """The kB figures of /proc/PID/status (VmHWM, RssAnon, ...), by name."""
    with open(f"/proc/{pid}/status") as f:
        return {k: int(v.split()[0]) for k, _, v in (line.partition(":") for line in f)
                if v.strip().endswith("kB")}


def proc_hwm_kb(pid):
    return proc_status_kb(pid).get("VmHWM", 0)


def proc_rss_split_kb(pid):
    """Resident memory now, split: the process's own (anonymous) pages and mapped files
    (binary and shared libraries, mostly shared with other processes)."""
    status = proc_status_kb(pid)
    return {"rss_anon_kb": status.get("RssAnon", 0),
            "rss_file_kb": status.get("RssFile", 0) + status.get("RssShmem", 0)}


def wait_usage(proc, sample_s=0.05):
    """Waits for `proc` and returns its own CPU (wait4 rusage) and peak RSS. The peak is
    VmHWM sampled while it runs: rusage's ru_maxrss keeps the high-water mark from before
    exec, i.e. the forking Python runner's size, not the program's."""
    hwm = 0
    while True:
        try:
            hwm = max(hwm, proc_hwm_kb(proc.pid))
        except (FileNotFoundError, ProcessLookupError):
            pass
        pid, status, ru = os.wait4(proc.pid, os.WNOHANG)
        if pid == proc.pid:
            break
        time.sleep(sample_s)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return Usage(ru.ru_utime + ru.ru_stime, hwm), proc.returncode


def load_average():
    return os.getloadavg()[0]


def wait_for(predicate, timeout_s, what, poll_s=0.02):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(poll_s)
    raise RuntimeError(f"timed out after {timeout_s}s waiting for {what}")

