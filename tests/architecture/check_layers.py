#!/usr/bin/env python3
"""ctest driver of architecture.layers: the project's own #includes point down the layers.

Floors, lowest first: core < graph < models < apps. A file may include a header of its own floor
or of a floor below it, never one above. Inside a floor the sub-folders are steps (LAYERS below,
lowest first; "." is the floor's own files, and a detail/ folder belongs to the folder that
holds it): a file may include a header of its own sub-folder or of a lower step. Sub-folders on
one step are independent: neither includes the other. docs/DEVELOPMENT.md ("Layout") documents
the same order; a new sub-folder goes into both.

    check_layers.py [--root DIR]

Scans every .hpp/.cpp under DIR/{core,graph,models,apps} (DIR: the repository root by default)
and prints each #include "..." (or <...>) of a project header that breaks a rule, as
FILE:LINE: #include "HEADER": RULE. Exit status 1 when there is one, else 0.
"""

import argparse
import os
import re
import sys

FLOORS = ["core", "graph", "models", "apps"]

# Steps inside each floor, lowest first; the folders of one step are independent.
LAYERS = {
    "core": [["."], ["io"], ["runtime"], ["linalg"], ["optim", "tt"]],
    "graph": [["."], ["io"], ["coarse", "order", "spectral", "synth"]],
    "models": [["layers"], ["loss"], ["memory"], ["."], ["embedding"], ["train"], ["pipeline"]],
    "apps": [["."]],
}

INCLUDE = re.compile(r'^\s*#\s*include\s*(?:"([^"]+)"|<([^>]+)>)')
SOURCE_SUFFIXES = (".hpp", ".cpp", ".h", ".cc", ".cxx", ".hh", ".inl")


def folder_of(path):
    """(floor, sub-folder) of a repository-relative path, or None outside the floors."""
    parts = path.split("/")
    if len(parts) < 2 or parts[0] not in FLOORS:
        return None
    dirs = [p for p in parts[1:-1] if p != "detail"]
    return parts[0], dirs[0] if dirs else "."


def name(floor, sub):
    return floor + "/ root" if sub == "." else floor + "/" + sub


def order_text(floor):
    """The order as written in docs/DEVELOPMENT.md, e.g. "core/: root < io < ... < {optim, tt}"."""
    short = lambda sub: "root" if sub == "." else sub
    steps = [short(step[0]) if len(step) == 1 else "{" + ", ".join(map(short, step)) + "}"
             for step in LAYERS[floor]]
    return floor + "/: " + " < ".join(steps)


def step_of(floor, sub):
    for i, step in enumerate(LAYERS[floor]):
        if sub in step:
            return i
    return None


def resolve(root, including, spelled, quoted):
    """Repository-relative path of an included project header, or None (a system header)."""
    if spelled.split("/")[0] in FLOORS:
        return spelled
    if quoted:  # a quoted include may be relative to the including file
        candidate = os.path.normpath(os.path.join(os.path.dirname(including), spelled))
        if os.path.isfile(os.path.join(root, candidate)):
            return candidate.replace(os.sep, "/")
    return None


def rule_broken(source, target):
    """Why `source` may not include `target` (repository-relative paths), or None."""
    (sf, ss), (tf, ts) = folder_of(source), folder_of(target)
    if FLOORS.index(tf) > FLOORS.index(sf):
        return "%s/ may not include %s/ (floors: %s)" % (sf, tf, " < ".join(FLOORS))
    if tf != sf or ts == ss:
        return None
    s_step, t_step = step_of(sf, ss), step_of(tf, ts)
    if t_step is None:
        return "%s is not in the layer order (%s)" % (name(tf, ts), order_text(tf))
    if t_step > s_step:
        return "%s may not include %s, a higher step (%s)" % (name(sf, ss), name(tf, ts),
                                                               order_text(sf))
    if t_step == s_step:
        return "%s may not include %s: they are on one step, independent (%s)" % (
            name(sf, ss), name(tf, ts), order_text(sf))
    return None


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")),
                        help="repository root (default: the one this script is in)")
    root = parser.parse_args().root

    problems, files, includes = [], 0, 0
    for floor in FLOORS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, floor)):
            dirnames.sort()
            for fn in sorted(filenames):
                if not fn.endswith(SOURCE_SUFFIXES):
                    continue
                source = os.path.relpath(os.path.join(dirpath, fn), root).replace(os.sep, "/")
                files += 1
                sf, ss = folder_of(source)
                if step_of(sf, ss) is None:
                    problems.append("%s: %s is not in the layer order (%s)"
                                    % (source, name(sf, ss), order_text(sf)))
                    continue
                with open(os.path.join(root, source), encoding="utf-8", errors="replace") as f:
                    for line_no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m:
                            continue
                        spelled = m.group(1) or m.group(2)
                        target = resolve(root, source, spelled, m.group(1) is not None)
                        if target is None or folder_of(target) is None:
                            continue
                        includes += 1
                        why = rule_broken(source, target)
                        if why:
                            problems.append('%s:%d: #include "%s": %s'
                                            % (source, line_no, spelled, why))
    for p in problems:
        print(p)
    if problems:
        print("%d include(s) break the layering (docs/DEVELOPMENT.md, \"Layout\"; "
              "the order: tests/architecture/check_layers.py)" % len(problems))
        return 1
    print("%d includes of project headers in %d files: none points up the layers" %
          (includes, files))
    for floor in FLOORS:
        print("  " + order_text(floor))
    return 0


if __name__ == "__main__":
    sys.exit(main())
