#!/usr/bin/env python3
"""SIGINT and SIGTERM at random points of a training run leave no temporary file, no new
output and no changed old one, and the last checkpoint loads.

    test_signals.py <ttgnn binary> <dataset folder> <scratch folder> [--tries N] [--seed S]

Each try trains a TT table on the dataset with a checkpoint every epoch and every other output
(--predictions, --export-embeddings, --metrics-out, --curve-svg), each already present with
known content, and sends SIGINT or SIGTERM after a random delay (seeded) that falls anywhere
from loading to the final writes. The run must end by that signal (or exit 0 when it finished
first). Then: no `*.tmp-*` file in the folder; the outputs are all the old ones byte for byte
(stopped before the run renamed them) or all new and whole (stopped during or after the
renames, or finished); a checkpoint that exists loads (`ttgnn predict`).
"""
import argparse
import os
import random
import shutil
import signal
import subprocess
import sys
import time

OUTPUTS = {"--predictions": "p.npy", "--export-embeddings": "e.npy",
           "--metrics-out": "m.csv", "--curve-svg": "c.svg"}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("dataset")
    ap.add_argument("scratch")
    ap.add_argument("--tries", type=int, default=16)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    env = dict(os.environ, OMP_WAIT_POLICY="passive", OMP_PROC_BIND="false")
    shutil.rmtree(args.scratch, ignore_errors=True)
    os.makedirs(args.scratch)

    def command(folder, epochs):
        cmd = [args.binary, "train", "--dataset", args.dataset, "--input", "tt", "--order",
               "original", "--epochs", str(epochs), "--patience", "0", "--quiet",
               "--checkpoint", os.path.join(folder, "run.ckpt"), "--checkpoint-every", "1"]
        for option, name in OUTPUTS.items():
            cmd += [option, os.path.join(folder, name)]
        return cmd

    # the length of a whole run, so that the signals fall anywhere in it: the shortest seen
    # (the first probe also warms the file cache; runs that finish before their signal shorten
    # it further, as a machine's load changes)
    full = float("inf")
    for p in range(2):
        probe = os.path.join(args.scratch, f"probe{p}")
        os.makedirs(probe)
        t0 = time.monotonic()
        subprocess.run(command(probe, 60), env=env, check=True, stdout=subprocess.DEVNULL)
        full = min(full, time.monotonic() - t0)
    print(f"a whole run takes {full:.2f} s")

    failures, killed, finished = [], 0, 0
    for t in range(args.tries):
        folder = os.path.join(args.scratch, f"try{t}")
        os.makedirs(folder)
        old = {}
        for name in OUTPUTS.values():
            old[name] = f"old {name} of try {t}\n".encode()
            with open(os.path.join(folder, name), "wb") as f:
                f.write(old[name])
        sig = rng.choice([signal.SIGINT, signal.SIGTERM])
        delay = rng.uniform(0.0, 1.1 * full)
        t0 = time.monotonic()
        proc = subprocess.Popen(command(folder, 60), env=env, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        time.sleep(delay)
        proc.send_signal(sig)
        try:
            _, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            failures.append(f"try {t}: no exit within 60 s of {sig.name}")
            continue
        rc = proc.returncode
        if rc == 0:
            full = min(full, time.monotonic() - t0)
        what = f"try {t}: {sig.name} after {delay:.2f} s -> status {rc}"
        problems = []
        temps = [n for n in os.listdir(folder) if ".tmp-" in n]
        if temps:
            problems.append(f"temporary files left: {temps}")
        replaced = []
        for name, content in old.items():
            with open(os.path.join(folder, name), "rb") as f:
                data = f.read()
            if data != content:
                replaced.append(name)
                if len(data) < 64:
                    problems.append(f"{name} replaced by a file of {len(data)} bytes")
        if rc == -sig:
            killed += 1
            # stopped before the outputs' renames: all old; during or after them: all new
            if replaced and len(replaced) != len(old):
                problems.append(f"a killed run replaced {replaced} and not the others")
        elif rc == 0:
            finished += 1
            if len(replaced) != len(old):
                problems.append(f"a finished run replaced only {replaced}")
        else:
            problems.append(f"ended with status {rc}, expected {-sig} or 0: "
                            f"{err.decode(errors='replace').strip()[-300:]}")
        ckpt = os.path.join(folder, "run.ckpt")
        if os.path.exists(ckpt):
            check = subprocess.run([args.binary, "predict", "--checkpoint", ckpt, "--quiet",
                                    "--json"], env=env, capture_output=True)
            if check.returncode != 0:
                problems.append("the checkpoint does not load: " +
                                check.stderr.decode(errors="replace").strip()[-300:])
        print(("FAIL " if problems else "ok   ") + what + ("; " + "; ".join(problems)
                                                           if problems else ""))
        if problems:
            failures.append(what)
    print(f"{args.tries} tries: {killed} ended by the signal, {finished} finished first, "
          f"{len(failures)} failed")
    if killed < args.tries // 3:
        failures.append(f"only {killed} of {args.tries} runs were interrupted: the delays "
                        "miss the run")
        print(failures[-1])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
