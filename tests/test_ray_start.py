"""How a sweep starts embedded Ray (#42.6, the main job in at most 20 s on 2 cores): a private local
instance with only what a local sweep needs, started by a driver that has not imported the LLM stack
(litellm and tau2's orchestrator are seconds of CPU that only the workers need). The main job's time
beside Ray's start is measured by ``benchmarks/main_job_bench.py``; here, one run of it on a small sweep."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import yaml

from tests.conftest import ROOT, harness

# Stands in for ray.init in the CLI's process: records how it was called, and what the driver had
# imported by then, and ends the process before any Ray process starts.
RECORD_INIT = """
import json, os, sys, ray
def init(*args, **kwargs):
    heavy = [m for m in ("litellm", "tau2.orchestrator.orchestrator", "tau2.evaluator.evaluator") if m in sys.modules]
    print("RAY_INIT " + json.dumps({"args": list(args), "kwargs": {k: repr(v) for k, v in kwargs.items()},
          "usage_stats": os.environ.get("RAY_USAGE_STATS_ENABLED"), "heavy": heavy}), flush=True)
    os._exit(0)
ray.init = init
"""


def _small_demo(tmp_path, **over) -> str:
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(tasks=["0", "1"], trials=1, output=str(tmp_path / "out"), **over)
    demo["agents"] = demo["agents"][:1]
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump(demo))
    return str(path)


def test_the_cli_starts_a_private_local_ray_without_dashboard_logs_or_usage_stats(tmp_path):
    proc = harness("sweep", _small_demo(tmp_path), patch=RECORD_INIT, timeout=300, fresh=True)  # its imports
    line = next((x for x in proc.stdout.splitlines() if x.startswith("RAY_INIT ")), None)
    assert line is not None, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    called = json.loads(line.removeprefix("RAY_INIT "))
    kwargs = called["kwargs"]
    assert called["args"] == [] and kwargs["address"] == "'local'"  # never joins a `ray start` on this machine
    assert kwargs["_node_ip_address"] == "'127.0.0.1'"
    assert kwargs["include_dashboard"] == "False" and kwargs["log_to_driver"] == "False"
    assert kwargs["configure_logging"] == "False"
    assert int(kwargs["num_cpus"]) >= 1
    assert "runtime_env" not in kwargs  # nothing packaged and uploaded for a local run
    assert called["usage_stats"] == "0"
    assert called["heavy"] == [], f"the driver imported {called['heavy']} before starting Ray"


def test_the_main_job_benchmark_prints_ray_start_beside_the_main_job(tmp_path):
    bench = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "main_job_bench.py"), "--config",
                            _small_demo(tmp_path, max_concurrency=1)], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert bench.returncode == 0, bench.stderr[-2000:]
    last = bench.stdout.strip().splitlines()[-1]
    seconds = dict(re.findall(r"(main job|ray\.init|ray up|trials|after|ray\.shutdown) ([0-9.]+)s", last))
    assert last.startswith("ours:") and len(seconds) == 6, bench.stdout
    s = {name: float(value) for name, value in seconds.items()}
    # Ray starts inside the main job, the workers are up after it, and the trials run
    assert 0 < s["ray.init"] < s["ray up"] < s["main job"] and s["trials"] > 0, s
    # the CLI stops Ray itself once the results are printed (Ray's exit hook sleeps half a second first)
    assert 0 < s["ray.shutdown"] < s["after"], s


def test_only_a_sweep_that_calls_a_model_warms_litellm_up(monkeypatch):
    """A worker's warm-up makes one (local, mocked) litellm completion where trials call a model; the offline
    agents with the scripted user never do, and skip it."""
    import litellm

    from harness.config import ModelSpec
    from harness.simulation import warm_up
    from harness.trials import load_sweep

    offline = {name: load_sweep(ROOT / "configs" / name).calls_llm()
               for name in ("offline-demo.yaml", "offline-paper.yaml", "null-agent.yaml", "smoke.yaml")}
    assert offline == {"offline-demo.yaml": False, "offline-paper.yaml": False, "null-agent.yaml": False,
                       "smoke.yaml": True}
    demo = load_sweep(ROOT / "configs" / "offline-demo.yaml")
    assert demo.model_copy(update={"judge": ModelSpec(model="openai/judge")}).calls_llm()  # a judge calls one

    calls: list[str] = []
    monkeypatch.setattr(litellm, "completion", lambda **kw: calls.append(kw["model"]))
    warm_up(["airline"], llm=False)
    assert calls == []
    warm_up(["airline"], llm=True)
    assert calls == ["openai/warm-up"]


# Starts embedded Ray as a sweep does, gives it one task (so a worker process runs), then prints each
# listening TCP address of this process and every process under it: the GCS, the raylet, Ray's agents, workers.
LISTENING = """
import json, os, socket
from pathlib import Path
import ray
from harness.execution import init_ray
from tests.conftest import child_pids

init_ray(None, 1)
assert ray.get(ray.remote(lambda: os.getpid()).remote()) != os.getpid()

tree, todo = set(), [os.getpid()]
while todo:
    pid = todo.pop()
    tree.add(pid)
    todo += child_pids(pid)
inodes = {}
for pid in tree:
    try:
        for fd in Path(f"/proc/{pid}/fd").iterdir():
            link = os.readlink(fd)
            if link.startswith("socket:["):
                inodes[link[8:-1]] = pid
    except OSError:
        pass

def address(hex_ip):
    raw = bytes.fromhex(hex_ip)
    raw = b"".join(raw[i:i + 4][::-1] for i in range(0, len(raw), 4))  # the kernel's words, little-endian
    return socket.inet_ntop(socket.AF_INET if len(raw) == 4 else socket.AF_INET6, raw)

listening = []
for table in ("tcp", "tcp6"):
    for row in Path(f"/proc/net/{table}").read_text().splitlines()[1:]:
        fields = row.split()
        if fields[3] == "0A" and fields[9] in inodes:  # TCP_LISTEN
            listening.append([inodes[fields[9]], address(fields[1].split(":")[0])])
print("LISTENING " + json.dumps({"pids": len(tree), "listening": listening}))
ray.shutdown()
"""


def test_embedded_ray_listens_on_the_loopback_only():
    """Ray makes a node address of 127.0.0.1 this machine's routable one, and its servers then listen on every
    interface: the embedded instance keeps the loopback address, so none does."""
    proc = subprocess.run([sys.executable, "-c", LISTENING], capture_output=True, text=True, timeout=300, cwd=ROOT)
    line = next((x for x in proc.stdout.splitlines() if x.startswith("LISTENING ")), None)
    assert proc.returncode == 0 and line is not None, proc.stderr[-2000:]
    seen = json.loads(line.removeprefix("LISTENING "))
    assert seen["pids"] >= 4 and len(seen["listening"]) >= 4, seen  # the driver, GCS, raylet and a worker listen
    exposed = [(pid, ip) for pid, ip in seen["listening"] if ip not in ("127.0.0.1", "::ffff:127.0.0.1", "::1")]
    assert exposed == [], f"listening beyond the loopback: {exposed}"
