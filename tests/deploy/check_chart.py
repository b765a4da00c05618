#!/usr/bin/env python3
"""Usage: check_chart.py CHART_DIR OUTBOXD_BINARY

Lints the Helm chart and checks what it renders: with the default values and as active/standby
with a ServiceMonitor. Needs helm: $OUTBOXD_HELM, else the one scripts/helm builds
(${OUTBOXD_CACHE:-~/.cache/outboxd}/bin/helm), else PATH. Without one it exits 77 (skipped),
but 1 under CI (CI=true), where scripts/setup --test has built it. The rendered outboxd.toml must pass
`outboxd check --offline`. Exits 1 listing the problems.
"""
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


def find_helm():
    if os.environ.get("OUTBOXD_HELM"):
        return os.environ["OUTBOXD_HELM"]
    cache = os.environ.get("OUTBOXD_CACHE") or os.path.expanduser("~/.cache/outboxd")
    built = os.path.join(cache, "bin", "helm")
    if os.access(built, os.X_OK):
        return built
    return shutil.which("helm")


def helm(*args, check=True):
    binary = find_helm()
    return subprocess.run([binary, *args], capture_output=True, text=True, check=check)


def render(chart, *sets):
    args = ["template", "outboxd", chart]
    for s in sets:
        args += ["--set", s]
    out = helm(*args).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def by_kind(docs):
    kinds = {}
    for d in docs:
        kinds.setdefault(d["kind"], []).append(d)
    return kinds


def check_defaults(docs, outboxd, problems):
    kinds = by_kind(docs)
    expect = {"ConfigMap", "Deployment", "Service", "PodDisruptionBudget"}
    if set(kinds) != expect:
        problems.append(f"default render: kinds {sorted(kinds)}, want {sorted(expect)}")
        return
    dep = kinds["Deployment"][0]["spec"]
    if dep["replicas"] != 1 or dep["strategy"]["type"] != "Recreate":
        problems.append("Deployment: want 1 replica and the Recreate strategy")
    pod = dep["template"]["spec"]
    (c,) = pod["containers"]
    if c["livenessProbe"]["httpGet"]["path"] != "/healthz":
        problems.append("liveness probe is not /healthz")
    if c["readinessProbe"]["httpGet"]["path"] != "/readyz":
        problems.append("readiness probe is not /readyz")
    port = c["ports"][0]["containerPort"]
    sc = c["securityContext"]
    if not (sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"]
            and sc["capabilities"]["drop"] == ["ALL"]):
        problems.append(f"container securityContext too loose: {sc}")
    psc = pod["securityContext"]
    if not psc.get("runAsNonRoot") or not psc.get("runAsUser"):
        problems.append("pod must run as a numeric non-root user")
    env = {e["name"]: e for e in c["env"]}
    ref = env.get("OUTBOXD_POSTGRES_CONNINFO", {}).get("valueFrom", {}).get("secretKeyRef")
    if not ref or ref.get("optional"):
        problems.append("OUTBOXD_POSTGRES_CONNINFO must come from a required Secret key")
    for name in ("OUTBOXD_LOG_LEVEL", "OUTBOXD_LOG_FORMAT"):
        if name not in env:
            problems.append(f"{name} is not set")
    svc = kinds["Service"][0]["spec"]
    if not svc.get("publishNotReadyAddresses"):
        problems.append("Service must publish not-ready addresses (standby metrics)")
    if svc["ports"][0]["port"] != port:
        problems.append("Service port differs from the container port")
    pdb = kinds["PodDisruptionBudget"][0]["spec"]
    if pdb.get("maxUnavailable") != 1 or pdb.get("unhealthyPodEvictionPolicy") != "AlwaysAllow":
        problems.append(f"PodDisruptionBudget: {pdb}")
    toml = kinds["ConfigMap"][0]["data"]["outboxd.toml"]
    if f":{port}\"" not in toml:
        problems.append(f"the config's [http] listen is not on the probes' port {port}")
    with tempfile.NamedTemporaryFile("w", suffix=".toml") as f:
        f.write(toml)
        f.flush()
        env = dict(os.environ, OUTBOXD_POSTGRES_CONNINFO="host=db dbname=app user=outboxd")
        r = subprocess.run([outboxd, "check", "--offline", "--config", f.name], env=env,
                           capture_output=True, text=True)
        if r.returncode != 0:
            problems.append(f"outboxd check --offline of the rendered config: {r.stdout}{r.stderr}")


def check_standby(docs, problems):
    kinds = by_kind(docs)
    if "ServiceMonitor" not in kinds:
        problems.append("serviceMonitor.enabled=true renders no ServiceMonitor")
    dep = kinds["Deployment"][0]["spec"]
    if dep["replicas"] != 2 or "podAntiAffinity" not in dep["template"]["spec"].get("affinity", {}):
        problems.append("replicaCount=2: want 2 replicas on different nodes (anti-affinity)")


def main(argv):
    chart, outboxd = argv[1], argv[2]
    binary = find_helm()
    if not binary:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            print("helm not found under CI (scripts/helm builds it): failed", file=sys.stderr)
            return 1
        print("helm not found ($OUTBOXD_HELM, the cache, PATH): skipped; scripts/helm builds it")
        return SKIP
    print(f"helm: {binary}")
    import yaml  # noqa: F401 (python3-yaml); only needed once helm is there
    globals()["yaml"] = yaml
    problems = []
    lint = helm("lint", "--strict", chart, check=False)
    if lint.returncode != 0:
        problems.append(f"helm lint: {lint.stdout}{lint.stderr}")
    check_defaults(render(chart), outboxd, problems)
    check_standby(render(chart, "replicaCount=2", "serviceMonitor.enabled=true"), problems)
    three = helm("template", "outboxd", chart, "--set", "replicaCount=3", check=False)
    if three.returncode == 0 or "replicaCount must be 1" not in three.stderr:
        problems.append("replicaCount=3 must be refused")
    for p in problems:
        print(p, file=sys.stderr)
    print(f"chart {chart}: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
