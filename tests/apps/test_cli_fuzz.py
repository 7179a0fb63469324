#!/usr/bin/env python3
"""Seeded fuzz-style test of the `ttgnn` command line: what a run promises about its inputs,
outputs and messages (docs/CLI.md, "Exit codes").

    test_cli_fuzz.py <ttgnn binary> <cora dataset folder> <scratch folder>
                     [--seed S] [--cases N] [--timeout T] [--only REGEX] [--keep]

From random.Random(S) it generates N invocations of train, predict, partition, info, ogb,
generate and config, each with a stated expectation:

  must_fail   the run is refused, and the message names the given option(s) or file(s)
  may_succeed some random values are legal: exit 0 is fine, and a refusal must still keep
              the failure contract below (naming the fuzzed option)

The classes of cases (a tiny generated dataset; the bundled cora read-only, and only where no
output can reach it):
  value    one option from a command's --help list with a hostile value (0, -1, 1e12,
           99999999999, nan, inf, '', 'abc', '1,,2', '0,8,8', a 40-entry list, a folder,
           a path in a missing folder, a garbage file), sometimes with valid outputs whose
           files already exist
  collide  two outputs of one command naming the same file (also through a symlink), an
           output naming the input checkpoint or a file inside the dataset folder
  corrupt  a copy of the tiny dataset with one line replaced (garbage, NaN feature,
           out-of-range or negative node id, wrong column count), a truncated or missing
           file, a node in two splits or twice in one
  threads  --kokkos-num-threads=0/abc/-1/513/600, OMP_NUM_THREADS=0/abc/-1/600
  size     sizes that cannot fit: --tt-rank 100000, --emb-dim 1e9, --hidden 2e9,
           edge-list --num-nodes 1e12, generate --nodes 1e12
  misc     broken or folder checkpoints, --resume from a truncated checkpoint, a run that
           stops on a NaN loss (exit 4) over existing outputs, unknown command/option

The contract (docs/CLI.md) checked for every run:
  failed run  exit status exactly 1 (2 only for an unknown command; never 3, never a signal,
              never a hang), stderr non-empty and naming the option (`--tt-rank` or `tt-rank`)
              or the file (path or basename, and the line number for a malformed line),
              stdout empty, no new or changed file in the case folder (pre-existing "good"
              files byte for byte unchanged), no *.tmp* file anywhere in the scratch tree
  exit 4      (train/ogb, NaN loss; allowed only where the case says so) JSON on stdout, no
              --predictions/--export-embeddings written or replaced, inputs unchanged
  success     stdout ends with a JSON line, inputs (dataset, input checkpoint) unchanged,
              no temporary file left
  always      the shared inputs (tiny dataset, base checkpoint, edge list, cora) unchanged

Prints one line per case, the reason under every FAIL, a summary; exits 1 if any case failed.
Standard library only.
"""
import argparse
import fnmatch
import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import struct
import subprocess
import sys
import time
import random

# --------------------------------------------------------------------------------------------
# globals filled in main()
BIN = ''
SCRATCH = ''
CORA = ''
TINY = ''
BASE_CKPT = ''
EDGES = ''
LABELS_NPY = ''
FEATS_NPY = ''
OGBROOT = ''
TINY_LINES = {}  # relpath -> list of lines of the tiny dataset (no newline)
TIMEOUT = 15.0
MARKER = '.cli_fuzz_scratch'

HUGE = ['1e12', '99999999999']
LONG = ','.join(['7'] * 40)
VALUES = ['0', '-1', '1e12', '99999999999', 'nan', 'inf', '', 'abc', '1,,2', '0,8,8', 'LONG',
          'DIR', 'MISSING', 'FILE']


def opt_name(opt):
    return opt.lstrip('-')


# --------------------------------------------------------------------------------------------
# expectations of a hostile value per option kind: 'fail', 'may' or None (not generated)

def expect_for(kind, v, cmd):
    textual = v in ('', 'abc', '1,,2', '0,8,8', 'LONG', 'DIR', 'MISSING', 'FILE', 'nan', 'inf')
    if kind in ('int_pos', 'int_size', 'int_size0', 'int_nonneg', 'int_big', 'int_epochs',
                'int_any', 'num_nodes'):
        if textual:
            return 'fail'
        if v == '0':
            return {'int_pos': 'fail', 'int_size': 'fail'}.get(kind, 'may')
        if v == '-1':
            return 'may' if kind == 'int_any' else 'fail'
        # huge
        if kind == 'int_epochs':
            return None  # a legal huge epoch count would just run for ever
        if kind in ('int_size', 'int_size0', 'num_nodes'):
            return 'fail'
        return 'may'
    if kind in ('real01', 'real01neg'):
        if v == '0':
            return 'may'
        if v == '-1':
            return 'may' if kind == 'real01neg' else 'fail'
        return 'fail'
    if kind in ('real', 'real_nonneg', 'real_size', 'gamma'):
        if v in ('', 'abc', '1,,2', '0,8,8', 'LONG', 'DIR', 'MISSING', 'FILE'):
            return 'fail'
        if v == '0':
            return 'may'
        if v == '-1':
            return 'may' if kind == 'real' else 'fail'
        if v == 'nan':
            return 'may' if kind == 'real' else 'fail'
        if v == 'inf':
            return 'fail' if kind == 'real_size' else 'may'
        return 'fail' if kind == 'real_size' else 'may'  # huge
    if kind == 'enum':
        return 'fail'
    if kind == 'refused':
        return 'fail'
    if kind == 'list_tt':
        if v == '':
            return 'may'
        if cmd == 'partition' and v == '99999999999':
            return 'may'
        return 'fail'
    if kind == 'list_fanout':
        if v in ('abc', '1,,2', 'nan', 'inf', 'DIR', 'MISSING', 'FILE'):
            return 'fail'
        return 'may'
    if kind == 'size':
        if v in ('0', '1e12', '99999999999', ''):
            return 'may'
        return 'fail'
    if kind == 'path_out':
        return 'fail' if v in ('DIR', 'MISSING') else 'may'
    if kind == 'gen_out':
        return 'fail' if v in ('', 'FILE') else 'may'
    if kind == 'path_in':
        return 'fail'
    if kind == 'cache':
        return 'may'  # a cache folder that cannot be used is skipped with a warning
    if kind == 'split':
        return 'may' if v == '' else 'fail'
    if kind == 'split_name':
        return 'may'
    if kind in ('npy_in', 'ckpt_in'):
        return 'may' if (v == '' and kind == 'npy_in') else 'fail'
    raise ValueError(kind)


TT = {'--input': 'tt', '--tt-rank': '4', '--emb-dim': '16'}
BATCH = {'--model': 'sage', '--batch-size': '64'}

TRAIN_OPTS = {
    '--dataset': ('path_in', {}), '--preset': ('enum', {}), '--split': ('split', {}),
    '--cache': ('cache', {}), '--feature-norm': ('enum', {}), '--model': ('enum', {}),
    '--input': ('enum', {}), '--order': ('enum', {}), '--locality': ('enum', {}),
    '--init': ('enum', TT), '--init-std': ('real', TT),
    '--spectral-exponent': ('real_nonneg', dict(TT, **{'--init': 'spectral'})),
    '--spectral-max-entries': ('int_pos', dict(TT, **{'--init': 'spectral'})),
    '--emb-dim': ('int_size', TT), '--tt-rank': ('int_size', TT),
    '--tt-shape': ('list_tt', TT), '--tt-dims': ('list_tt', TT), '--tt-slack': ('real', TT),
    '--hidden': ('int_size', {}), '--layers': ('int_size', {}), '--dropout': ('real01', {}),
    '--input-dropout': ('real01', {}), '--memory-budget': ('size', {}),
    '--epochs': ('int_epochs', {}), '--optimizer': ('enum', {}), '--lr': ('real', {}),
    '--weight-decay': ('real', {}), '--emb-lr': ('real', TT), '--emb-weight-decay': ('real', TT),
    '--patience': ('int_nonneg', {}), '--metric': ('enum', {}), '--lr-warmup': ('int_nonneg', {}),
    '--warmup': ('refused', {}), '--plateau-factor': ('real', {}),
    '--plateau-patience': ('int_nonneg', {'--plateau-factor': '0.5'}), '--seed': ('int_any', {}),
    '--tt-backward': ('enum', TT), '--batch-size': ('int_nonneg', {'--model': 'sage'}),
    '--fanout': ('list_fanout', BATCH), '--eval-every': ('int_nonneg', BATCH),
    '--max-batches': ('int_nonneg', BATCH), '--eval-nodes': ('enum', BATCH),
    '--eval-fanout': ('list_fanout', dict(BATCH, **{'--eval-nodes': 'valid+test'})),
    '--eval-batch-size': ('int_nonneg', dict(BATCH, **{'--eval-nodes': 'valid+test'})),
    '--eval-chunk': ('int_nonneg', BATCH), '--checkpoint': ('path_out', {}),
    '--checkpoint-every': ('int_nonneg', {'--checkpoint': '@every.ckpt'}),
    '--export-embeddings': ('path_out', TT), '--predictions': ('path_out', {}),
    '--metrics-out': ('path_out', {}), '--curve-svg': ('path_out', {}),
    '--metis-algorithm': ('enum', {'--order': 'metis'}),
    '--lp-sweeps': ('int_nonneg', {'--order': 'lp-hier'}),
    '--multilevel-min-nodes': ('int_nonneg', {'--order': 'metis-hier'}),
}
OGB_OPTS = {k: v for k, v in TRAIN_OPTS.items() if k not in ('--dataset', '--preset', '--split')}
OGB_OPTS.update({'--name': ('enum', {}), '--root': ('path_in', {})})
PREDICT_OPTS = {
    '--checkpoint': ('ckpt_in', {}), '--dataset': ('path_in', {}), '--cache': ('cache', {}),
    '--predictions': ('path_out', {}), '--export-embeddings': ('path_out', {}),
}
PARTITION_OPTS = {
    '--dataset': ('path_in', {}), '--order': ('enum', {}), '--tt-shape': ('list_tt', {}),
    '--parts': ('int_nonneg', {'--order': 'metis'}), '--seed': ('int_any', {}),
    '--metis-algorithm': ('enum', {'--order': 'metis'}), '--metis-max-degree': ('int_nonneg', {}),
    '--lp-sweeps': ('int_nonneg', {'--order': 'lp-hier'}), '--cache': ('cache', {}),
    '--split': ('split', {}), '--save': ('path_out', {}),
    '--multilevel-min-nodes': ('int_nonneg', {'--order': 'metis-hier'}),
}
EL = {'--dataset': '!EDGES'}
INFO_OPTS = {
    '--dataset': ('path_in', {}), '--split': ('split', {}),
    '--feature-layout': ('enum', {'--features': None}), '--cache': ('cache', {}),
    '--labels': ('npy_in', EL), '--features-npy': ('npy_in', dict(EL, **{'--labels': '!LABELS'})),
    '--num-nodes': ('num_nodes', dict(EL, **{'--labels': '!LABELS'})),
}
GENERATE_OPTS = {
    '--out': ('gen_out', {}), '--nodes': ('int_size', {}), '--classes': ('int_size', {}),
    '--avg-degree': ('real_size', {}), '--homophily': ('real01', {}),
    '--communities': ('int_size', {}), '--community-fraction': ('real01', {'--communities': '2'}),
    '--power-law': ('gamma', {}), '--features': ('int_size0', {}), '--feature-sep': ('real', {}),
    '--train': ('real01', {}), '--valid': ('real01', {}), '--test': ('real01neg', {}),
    '--split-name': ('split_name', {}), '--multilabel': ('int_size0', {}),
    '--label-noise': ('real01', {'--multilabel': '3'}),
    '--unknown-labels': ('real01', {'--multilabel': '3'}),
    '--edge-features': ('int_size0', {}), '--seed': ('int_any', {}),
}
COMMAND_OPTS = {'train': TRAIN_OPTS, 'ogb': OGB_OPTS, 'predict': PREDICT_OPTS,
                'partition': PARTITION_OPTS, 'info': INFO_OPTS, 'generate': GENERATE_OPTS}
TRAIN_OUTPUTS = ['--checkpoint', '--metrics-out', '--predictions', '--export-embeddings',
                 '--curve-svg']


# --------------------------------------------------------------------------------------------
class Case:
    def __init__(self, num, cat, cls, expect):
        self.num = num
        self.cat = cat            # value, collide, corrupt, threads, size, misc
        self.cls = cls            # short label of the class, for the summary
        self.expect = expect      # 'fail' or 'may'
        self.dir = os.path.join(SCRATCH, 'cases', '%03d' % num)
        self.argv = []
        self.env = {}
        self.names = []           # groups; each group: alternatives (str or re.Pattern)
        self.allow_rc = set()     # extra exit statuses accepted for a failure (2, 4)
        self.files = {}           # relpath -> bytes, created before the run
        self.links = {}           # relpath -> symlink target (relative to the link)
        self.hardlinks = {}       # relpath -> relpath of the file it is a hard link of
        self.copies = []          # (src, relpath) copied before the run (file or folder)
        self.ops = []             # dataset mutations, applied after the copies
        self.inputs = []          # relpaths (in the case folder) that must never change
        self.protect4 = []        # relpaths that an exit-4 run must not write
        self.note = ''

    def p(self, rel):
        return os.path.join(self.dir, rel)


def std_dirs(case):
    case.files['afile'] = b'hello world\nthis is not what the option wants\n'
    case.files['adir/.keep'] = b''


def value_path(case, v):
    if v == 'DIR':
        return case.p('adir')
    if v == 'MISSING':
        return case.p('no/such/dir/out.bin')
    if v == 'FILE':
        return case.p('afile')
    if v == 'LONG':
        return LONG
    return v


def path_alts(path):
    alts = [path, os.path.basename(path.rstrip('/'))] if path else []
    return [a for a in alts if a]


def maybe_good(rng, case, rel, prob=0.5):
    """A pre-existing 'good' file at an output path, with random content."""
    if rng.random() < prob:
        case.files[rel] = b'GOOD ' + rng.randbytes(rng.randint(16, 200))


def build_args(base, ctx, fuzz):
    """base/ctx: ordered dicts option -> value (None: a flag); fuzz: (opt, value) or None."""
    merged = dict(base)
    for k, v in ctx.items():
        merged[k] = v
    if fuzz is not None:
        merged.pop(fuzz[0], None)
    args = []
    for k, v in merged.items():
        args.append(k)
        if v is not None:
            args.append(v)
    if fuzz is not None:
        args += [fuzz[0], fuzz[1]]
    return args


def resolve_ctx(case, ctx):
    out = {}
    for k, v in ctx.items():
        if isinstance(v, str) and v.startswith('@'):
            v = case.p(v[1:])
        elif v == '!EDGES':
            v = EDGES
        elif v == '!LABELS':
            v = LABELS_NPY
        out[k] = v
    return out


def base_for(cmd, case, rng):
    if cmd == 'train':
        return {'--dataset': TINY, '--epochs': '2', '--quiet': None, '--seed': str(rng.randint(0, 9))}
    if cmd == 'ogb':
        return {'--name': 'ogbn-arxiv', '--root': OGBROOT, '--epochs': '2', '--quiet': None}
    if cmd == 'predict':
        return {'--checkpoint': BASE_CKPT, '--quiet': None}
    if cmd == 'partition':
        return {'--dataset': TINY, '--json': None}
    if cmd == 'info':
        return {'--dataset': TINY, '--json': None}
    if cmd == 'generate':
        return {'--out': case.p('gen'), '--nodes': '300', '--classes': '3', '--features': '8',
                '--seed': '1', '--no-gzip': None}
    raise ValueError(cmd)


def extra_outputs(cmd, case, rng, fuzz_opt, ctx):
    """Valid outputs added to some value cases; their files may already exist."""
    extra = {}
    if rng.random() >= 0.4:
        return extra
    if cmd in ('train', 'ogb'):
        cand = {'--checkpoint': 'out/run.ckpt', '--metrics-out': 'out/m.csv',
                '--curve-svg': 'out/c.svg', '--predictions': 'out/p.npy'}
        if ctx.get('--input') == 'tt':
            cand['--export-embeddings'] = 'out/e.npy'
    elif cmd == 'predict':
        cand = {'--predictions': 'out/p.npy', '--export-embeddings': 'out/e.npy'}
    elif cmd == 'partition':
        cand = {'--save': 'out/rows.npy'}
    else:
        return extra
    keys = [k for k in cand if k != fuzz_opt and k not in ctx]
    for k in rng.sample(keys, min(len(keys), rng.randint(1, 2))):
        extra[k] = case.p(cand[k])
        case.files.setdefault('out/.keep', b'')
        maybe_good(rng, case, cand[k])
    return extra


def gen_value(case, rng):
    weights = [('train', 40), ('predict', 10), ('partition', 12), ('info', 12), ('ogb', 10),
               ('generate', 16)]
    cmd = rng.choices([w[0] for w in weights], [w[1] for w in weights])[0]
    opts = COMMAND_OPTS[cmd]
    while True:
        opt = rng.choice(list(opts))
        kind, ctx = opts[opt]
        vals = VALUES + (['1', '1KiB'] if kind == 'size' else []) + \
            (['5'] if kind == 'num_nodes' else []) + (['NONEMPTY'] if kind == 'gen_out' else [])
        v = rng.choice(vals)
        if v == 'NONEMPTY':
            exp = 'fail'
        elif v in ('1', '1KiB'):
            exp = 'fail'
        elif v == '5':
            exp = 'fail'
        else:
            exp = expect_for(kind, v, cmd)
        if exp is not None:
            break
    std_dirs(case)
    value = case.dir if v == 'NONEMPTY' else value_path(case, v)
    if kind == 'ckpt_in' and v == 'FILE':
        case.files['afile'] = b'TTGNN' + rng.randbytes(300)
    ctx = resolve_ctx(case, ctx)
    base = base_for(cmd, case, rng)
    extra = extra_outputs(cmd, case, rng, opt, ctx)
    case.argv = [cmd] + build_args(base, dict(ctx, **extra), (opt, value))
    case.expect = exp
    case.cls = 'value %s %s=%s' % (cmd, opt, v if v not in ('', ) else "''")
    alts = [opt_name(opt)]
    if kind in ('path_in', 'path_out', 'gen_out', 'cache', 'npy_in', 'ckpt_in', 'split') and value:
        alts += path_alts(value)
    if v == '5' and kind == 'num_nodes':
        alts += path_alts(EDGES)
    case.names = [alts]
    if cmd in ('train', 'ogb') and exp == 'may':
        case.allow_rc.add(4)
        case.protect4 = [os.path.relpath(extra[k], case.dir) for k in extra
                         if k in ('--predictions', '--export-embeddings')]


# ---- output collisions -----------------------------------------------------------------------

def spell(case, rng, rel, how=None):
    """One of several spellings of the case file rel (the run's working folder is the case
    folder): absolute, relative, with '.' or '..' components."""
    how = how if how is not None else rng.randrange(5)
    d, b = os.path.split(rel)
    if how == 0:
        return case.p(rel)
    if how == 1:
        return rel
    if how == 2:
        return './' + rel
    if how == 3:
        return case.p(os.path.join(d, '.', b))
    return case.p(os.path.join(d, '..', os.path.basename(d), b)) if d else case.p('./' + b)


def same_file_as(case, rng, rel, target_rel, how):
    """A second name for target_rel at rel: 'link' (symlink), 'hard' (hard link); the
    caller's spelling otherwise."""
    if how == 'link':
        case.links[rel] = os.path.relpath(target_rel, os.path.dirname(rel) or '.')
    elif how == 'hard':
        case.hardlinks[rel] = target_rel
    return case.p(rel)


def gen_collide(case, rng, variant):
    std_dirs(case)
    case.files['out/.keep'] = b''
    v = variant % 8
    case.expect = 'fail'
    # (hard links are no collision: an output is written to a temporary file and renamed,
    # which replaces that name only)
    how = rng.choice(['same', 'spelling', 'link'])
    sub = (variant // 8) % 5  # variant 7 cycles through five commands
    if v in (0, 1) or (v == 7 and sub == 0):
        cmd = 'train' if v != 7 else 'ogb'
        o1, o2 = rng.sample(TRAIN_OUTPUTS, 2)
        base = base_for(cmd, case, rng)
        target = 'out/same.bin'
        if v == 1 and how == 'same':
            how = 'link'
        if how in ('link', 'hard'):
            case.files[target] = b'GOOD ' + rng.randbytes(64)
            p1, p2 = case.p(target), same_file_as(case, rng, 'out/other.bin', target, how)
        else:
            maybe_good(rng, case, target)
            p1 = case.p(target)
            p2 = p1 if how == 'same' else spell(case, rng, target, rng.randrange(1, 5))
        if rng.random() < 0.5:
            p1, p2 = p2, p1
        case.argv = [cmd] + build_args(base, dict(TT, **{o1: p1, o2: p2}), None)
        case.cls = 'collide %s %s = %s (%s)' % (cmd, o1, o2, how)
        case.names = [[opt_name(o1)], [opt_name(o2)]]
        return
    if v == 2 or v == 7:
        # an output naming an input file: inside the dataset folder (a private copy) or
        # under ogb's --root
        cmd = ['ogb', 'partition', 'predict', 'ogb', 'train'][sub] if v == 7 else 'train'
        if cmd == 'ogb':
            case.copies.append((OGBROOT, 'root'))
            for rel in TINY_LINES:
                rel = rel.replace('split/random', 'split/time')
                case.inputs.append('root/arxiv/' + rel)
            target_rel = 'root/arxiv/' + rng.choice(sorted(TINY_LINES)).replace('split/random', 'split/time')
        else:
            case.copies.append((TINY, 'ds'))
            for rel in TINY_LINES:
                case.inputs.append('ds/' + rel)
            case.inputs += ['ds/meta.csv']
            target_rel = 'ds/' + rng.choice(sorted(TINY_LINES) + ['meta.csv'])
        if how in ('link', 'hard'):
            target = same_file_as(case, rng, 'out/alias.bin', target_rel, how)
        else:
            target = spell(case, rng, target_rel, 0 if how == 'same' else rng.randrange(1, 5))
        if cmd == 'train':
            o = rng.choice(TRAIN_OUTPUTS)
            case.argv = ['train'] + build_args(dict(base_for('train', case, rng), **{'--dataset': case.p('ds')}),
                                               dict(TT, **{o: target}), None)
        elif cmd == 'ogb':
            o = rng.choice(TRAIN_OUTPUTS)
            case.argv = ['ogb'] + build_args(dict(base_for('ogb', case, rng), **{'--root': case.p('root')}),
                                             dict(TT, **{o: target}), None)
        elif cmd == 'predict':
            o = rng.choice(['--predictions', '--export-embeddings'])
            case.argv = ['predict', '--checkpoint', BASE_CKPT, '--dataset', case.p('ds'), '--quiet', o, target]
        else:
            o = '--save'
            case.argv = ['partition', '--dataset', case.p('ds'), '--json', o, target]
        inp = 'root' if cmd == 'ogb' else 'dataset'
        case.cls = 'collide %s %s = input file %s (%s)' % (cmd, o, os.path.basename(target_rel), how)
        case.names = [[opt_name(o)], [inp] + path_alts(case.p(target_rel))]
        return
    # predict: outputs against the input checkpoint and each other
    case.copies.append((BASE_CKPT, 'in.ckpt'))
    case.inputs.append('in.ckpt')
    if v in (3, 4, 6):
        o = {3: '--predictions', 4: '--export-embeddings'}.get(v) or \
            rng.choice(['--predictions', '--export-embeddings'])
        if v == 6:
            how = 'link'
        if how in ('link', 'hard'):
            out = same_file_as(case, rng, 'out/alias.npy', 'in.ckpt', how)
        else:
            out = spell(case, rng, 'in.ckpt', 0 if how == 'same' else rng.randrange(1, 5))
        ck = spell(case, rng, 'in.ckpt', 0)
        args = ['predict', '--checkpoint', ck, o, out, '--quiet']
        case.cls = 'collide predict %s = --checkpoint (%s)' % (o, how)
        case.names = [[opt_name(o)], ['checkpoint']]
    else:  # v == 5
        target = 'out/same.npy'
        if how in ('link', 'hard'):
            case.files[target] = b'GOOD ' + rng.randbytes(64)
            p2 = same_file_as(case, rng, 'out/alias.npy', target, how)
        else:
            maybe_good(rng, case, target)
            p2 = spell(case, rng, target, 0 if how == 'same' else rng.randrange(1, 5))
        args = ['predict', '--checkpoint', case.p('in.ckpt'), '--predictions', case.p(target),
                '--export-embeddings', p2, '--quiet']
        case.cls = 'collide predict --predictions = --export-embeddings (%s)' % how
        case.names = [['predictions'], ['export-embeddings']]
    case.argv = args


# ---- corrupted datasets ------------------------------------------------------------------------

def line_alts(rel, lineno):
    b = re.escape(os.path.basename(rel))
    return [re.compile(r'%s:%d\b' % (b, lineno)), re.compile(r'\bline %d\b' % lineno)]


def gen_corrupt(case, rng, variant):
    std_dirs(case)
    case.copies.append((TINY, 'ds'))
    for rel in TINY_LINES:
        case.inputs.append('ds/' + rel)
    case.inputs.append('ds/meta.csv')
    ds = case.p('ds')
    case.expect = 'fail'
    v = variant % 19
    E, F, L = 'raw/edge.csv', 'raw/node-feat.csv', 'raw/node-label.csv'
    TR, TE = 'split/random/train.csv', 'split/random/test.csv'
    n = 300

    def rand_line(rel):
        return rng.randrange(len(TINY_LINES[rel]))

    cmds = ['train', 'info']
    line = None
    if v == 0:
        rel, k = E, rand_line(E)
        u = TINY_LINES[E][k].split(',')[0]
        text = rng.choice(['abc,def', 'x', '1;2', '\x01\x02garbage\xff', u + ',abc', u + ',1.5'])
        what, line, cmds = 'garbage edge line', k, ['train', 'info', 'partition']
    elif v == 1:
        rel, k = E, rand_line(E)
        u = TINY_LINES[E][k].split(',')[0]
        bad = rng.choice([str(n), str(n + 7), '99999999', '123456789012'])
        text = rng.choice([u + ',' + bad, bad + ',' + u])
        what, line, cmds = 'edge node id out of range', k, ['train', 'info', 'partition']
    elif v == 2:
        rel, k = E, rand_line(E)
        u = TINY_LINES[E][k].split(',')[0]
        text = rng.choice(['-3,' + u, u + ',-1'])
        what, line, cmds = 'negative edge node id', k, ['train', 'info', 'partition']
    elif v == 3:
        rel, k = E, rand_line(E)
        parts = TINY_LINES[E][k].split(',')
        text = rng.choice([parts[0], ','.join(parts + ['5']), parts[0] + ',' + parts[1] + ','])
        what, line, cmds = 'edge line with a wrong column count', k, ['train', 'info', 'partition']
    elif v in (4, 5, 6):
        rel, k = F, rand_line(F)
        vals = TINY_LINES[F][k].split(',')
        j = rng.randrange(len(vals))
        if v == 4:
            vals[j] = rng.choice(['nan', 'NaN', 'inf', '-inf'])
            what = 'NaN/Inf feature'
        elif v == 5:
            vals = vals[:-1] if rng.random() < 0.5 else vals + ['0.5']
            what = 'feature row with a wrong column count'
        else:
            vals[j] = rng.choice(['abc', '1.2.3', '--'])
            what = 'garbage feature value'
        text = ','.join(vals)
        line = k
    elif v in (7, 8):
        rel, k = L, rand_line(L)
        text = rng.choice(['3', '7', '99']) if v == 7 else rng.choice(['abc', '1.5x', '0,1'])
        what = 'label out of range' if v == 7 else 'garbage label'
        line = k
    elif v in (9, 10):
        rel, k = TR, rand_line(TR)
        text = rng.choice([str(n), str(n + 1), '123456789']) if v == 9 else rng.choice(['-1', '-7', 'abc', '1,2'])
        what = 'split id out of range' if v == 9 else 'negative/garbage split id'
        line = k
    elif v == 11:
        t = rng.choice(TINY_LINES[TE])
        case.ops.append(('append', TR, t))
        what = 'a node in the train and the test split'
        case.names = [['train'], ['test']]
        rel = TR
    elif v == 12:
        t = rng.choice(TINY_LINES[TR])
        case.ops.append(('append', TR, t))
        what = 'a node twice in the train split'
        case.names = [path_alts(os.path.join(ds, TR))[1:] + [os.path.join(ds, TR), 'train']]
        rel = TR
    elif v == 13:
        rel = rng.choice([E, F])
        k = rand_line(rel)
        # cut right after a comma: the last line is malformed whatever the byte position
        off = sum(len(x) + 1 for x in TINY_LINES[rel][:k]) + TINY_LINES[rel][k].index(',') + 1
        case.ops.append(('truncate', rel, off))
        what = 'truncated %s' % os.path.basename(rel)
        line = k
        case.names = [path_alts(os.path.join(ds, rel)), line_alts(rel, k + 1)]
        if rel == E:
            cmds = ['train', 'info', 'partition']
    elif v == 14:
        rel = [E, L, F, TR, 'raw/num-node-list.csv'][(variant // 19) % 5]
        case.ops.append(('remove', rel))
        what = 'missing %s' % rel
        case.names = [path_alts(os.path.join(ds, rel)) + [rel, rel.split('.')[0]]]
        if rel == TR:
            case.names[0].append('split')
        cmds = ['train'] if rel in (L, F, TR) else ['train', 'info']
        if rel == 'raw/num-node-list.csv':
            case.expect = 'may'
        # labels and features are optional files: the folder loads (and may be cached), and
        # the run refuses what it lacks
        case.loadable = rel in (L, F)
    elif v == 16:
        rel = 'meta.csv'
        key, good = [('num_features', 8), ('num_nodes', 300), ('num_edges', 1500),
                     ('num_classes', 3)][(variant // 19) % 4]
        bad = good + rng.choice([-1, 1])
        case.ops.append(('sub', rel, r'(?m)^%s,%d$' % (key, good), '%s,%d' % (key, bad)))
        what = 'meta.csv %s %d, the files say %d' % (key, bad, good)
        other = {'num_nodes': 'num-node-list.csv', 'num_edges': 'num-edge-list.csv',
                 'num_classes': 'node-label.csv', 'num_features': 'node-feat.csv'}[key]
        case.names = [path_alts(os.path.join(ds, rel)) + [other, key]]
        cmds = ['train', 'info'] if key in ('num_nodes', 'num_edges') else ['train']
        if key == 'num_classes' and bad > good:
            case.expect = 'may'  # a class without nodes is legal
        if key == 'num_features':
            cmds = ['train-feat']
    elif v == 17:
        rel = [E, F, L][(variant // 19) % 3]
        keep = len(TINY_LINES[rel]) - rng.randint(1, 20)
        off = sum(len(x) + 1 for x in TINY_LINES[rel][:keep])
        case.ops.append(('truncate', rel, off))
        what = 'truncated %s at a line boundary (%d of %d lines)' % (
            os.path.basename(rel), keep, len(TINY_LINES[rel]))
        case.names = [path_alts(os.path.join(ds, rel)) + (['num-edge-list'] if rel == E else [])]
        cmds = {E: ['train', 'info', 'partition'], F: ['train-feat', 'info'], L: ['train', 'info']}[rel]
    elif v == 18:
        # a split file whose node is unlabelled: the docs say it is refused
        rel = L
        k = rng.choice([int(x) for x in TINY_LINES[TR]])
        case.ops.append(('replace', L, k, rng.choice(['nan', ''])))
        what = 'a training node without a label'
        case.names = [path_alts(os.path.join(ds, L)) + path_alts(os.path.join(ds, TR)) + ['unlabel', 'label']]
        case.expect = 'may'  # unlabelled nodes may be dropped from a split, or refused
        cmds = ['train']
    else:
        rel = 'raw/num-node-list.csv'
        text = rng.choice(['abc', '-5', '0', '', '300,1'])
        case.ops.append(('write', rel, text + ('\n' if text else '')))
        what = 'bad num-node-list (%r)' % text
        case.names = [path_alts(os.path.join(ds, rel))]
        if text == '0':
            case.names[0] += path_alts(os.path.join(ds, E))
        cmds = ['train', 'info', 'partition']
    if line is not None and v != 13:
        case.ops.append(('replace', rel, line, text))
        case.names = [path_alts(os.path.join(ds, rel)), line_alts(rel, line + 1)]
    if rel in (F,) and 'partition' in cmds:
        cmds.remove('partition')
    cmd = rng.choice(cmds)
    if cmd in ('train', 'train-feat'):
        args = ['train', '--dataset', ds, '--epochs', '2', '--quiet']
        if rel in (F,) or cmd == 'train-feat':
            args += ['--input', rng.choice(['feat', 'feat+tt'])]
        cmd = 'train'
    elif cmd == 'info':
        args = ['info', '--dataset', ds, '--features', '--split', 'random', '--json']
    else:
        args = ['partition', '--dataset', ds, '--json']
    if rng.random() < 0.3:
        args += ['--cache', case.p('cache')]
    if cmd == 'train' and rng.random() < 0.4:
        case.files['out/.keep'] = b''
        o = rng.choice(['--checkpoint', '--metrics-out', '--predictions'])
        args += [o, case.p('out/o.bin')]
        maybe_good(rng, case, 'out/o.bin', 0.7)
    case.argv = args
    case.cls = 'corrupt %s: %s' % (cmd, what)


# ---- thread counts -----------------------------------------------------------------------------

THREAD_VARIANTS = [  # (where, name, value, expectation)
    ('arg', '--kokkos-num-threads', '0', 'fail'), ('arg', '--kokkos-num-threads', 'abc', 'fail'),
    ('arg', '--kokkos-num-threads', '600', 'may'), ('arg', '--kokkos-num-threads', '513', 'may'),
    ('arg', '--kokkos-num-threads', '-1', 'fail'), ('env', 'OMP_NUM_THREADS', '0', 'fail'),
    ('env', 'OMP_NUM_THREADS', 'abc', 'fail'), ('arg', '--kokkos-num-threads', '2x', 'fail'),
    ('env', 'OMP_NUM_THREADS', '-1', 'fail'), ('env', 'OMP_NUM_THREADS', '600', 'may'),
    ('arg', '--kokkos-threads', '0', 'fail'), ('env', 'KOKKOS_NUM_THREADS', '0', 'fail'),
    ('env', 'OMP_NUM_THREADS', '', 'fail'), ('env', 'OMP_THREAD_LIMIT', '0', 'fail'),
    ('arg', '--kokkos-num-threads', '99999999999', 'fail'), ('env', 'OMP_NUM_THREADS', '2,2', 'may'),
]


def gen_threads(case, rng, variant):
    how, name, val, exp = THREAD_VARIANTS[variant % len(THREAD_VARIANTS)]
    std_dirs(case)
    cmd = rng.choice(['config', 'info', 'train', 'info-cora'])
    if cmd == 'config':
        args = ['config', '--json']
    elif cmd == 'info':
        args = ['info', '--dataset', TINY, '--json']
    elif cmd == 'info-cora':
        args = ['info', '--dataset', CORA, '--json']
        cmd = 'info'
    else:
        args = ['train', '--dataset', TINY, '--epochs', '2', '--quiet']
    if how == 'arg':
        args.append(name + '=' + val)
        case.names = [[opt_name(name)]]
        case.cls = 'threads %s %s=%s' % (cmd, name, val)
    else:
        case.env[name] = val
        case.names = [[name]]
        case.cls = 'threads %s %s=%s' % (cmd, name, val if val else "''")
    case.argv = args
    case.expect = exp


# ---- sizes that cannot fit -------------------------------------------------------------------

def gen_size(case, rng, variant):
    std_dirs(case)
    v = variant % 8
    case.expect = 'fail'
    ds = rng.choice([TINY, TINY, CORA])
    base = ['train', '--dataset', ds, '--epochs', '2', '--quiet']
    if v == 0:
        case.argv = base + ['--input', 'tt', '--tt-rank', '100000']
        opt = '--tt-rank'
    elif v == 1:
        case.argv = base + ['--input', rng.choice(['emb', 'tt', 'feat+emb']), '--emb-dim', '1000000000']
        opt = '--emb-dim'
    elif v == 2:
        case.argv = base + ['--hidden', '2000000000']
        opt = '--hidden'
    elif v == 3:
        case.argv = ['info', '--dataset', EDGES, '--num-nodes', '1000000000000', '--json']
        opt = '--num-nodes'
    elif v == 4:
        case.argv = ['ogb', '--name', 'ogbn-arxiv', '--root', OGBROOT, '--epochs', '2', '--quiet',
                     '--tt-rank', '100000']
        opt = '--tt-rank'
    elif v == 5:
        case.argv = base + ['--model', 'sage', '--batch-size', '64', '--hidden', '2000000000']
        opt = '--hidden'
    elif v == 6:
        case.argv = ['generate', '--out', case.p('gen'), '--nodes', '1000000000000', '--classes', '3',
                     '--features', '8', '--no-gzip']
        opt = '--nodes'
    else:
        case.argv = base + ['--model', 'sage', '--batch-size', '64', '--input', 'tt', '--tt-rank', '100000']
        opt = '--tt-rank'
    if case.argv[0] == 'train' and rng.random() < 0.5:
        case.files['out/.keep'] = b''
        case.argv += ['--checkpoint', case.p('out/run.ckpt')]
        maybe_good(rng, case, 'out/run.ckpt', 0.8)
    case.names = [[opt_name(opt)]]
    case.cls = 'size %s %s=%s' % (case.argv[0], opt, case.argv[case.argv.index(opt) + 1])


# ---- checkpoints, NaN losses, unknown words ----------------------------------------------------

def gen_misc(case, rng, variant):
    std_dirs(case)
    v = variant % 13
    case.expect = 'fail'
    raw = open(BASE_CKPT, 'rb').read()
    if v == 0:
        case.files['bad.ckpt'] = rng.randbytes(rng.randint(0, 2000))
        case.inputs.append('bad.ckpt')
        case.argv = ['predict', '--checkpoint', case.p('bad.ckpt'), '--quiet']
        case.names = [['checkpoint'] + path_alts(case.p('bad.ckpt'))]
        case.cls = 'misc predict --checkpoint <random bytes>'
    elif v == 1:
        case.files['trunc.ckpt'] = raw[:rng.randint(1, len(raw) - 1)]
        case.inputs.append('trunc.ckpt')
        case.argv = ['predict', '--checkpoint', case.p('trunc.ckpt'), '--quiet',
                     '--predictions', case.p('p.npy')]
        case.names = [['checkpoint'] + path_alts(case.p('trunc.ckpt'))]
        case.cls = 'misc predict --checkpoint <truncated checkpoint>'
    elif v == 2:
        case.argv = ['predict', '--checkpoint', case.p('adir'), '--quiet']
        case.names = [['checkpoint'] + path_alts(case.p('adir'))]
        case.cls = 'misc predict --checkpoint <folder>'
    elif v == 3:
        case.files['trunc.ckpt'] = raw[:rng.randint(1, len(raw) - 1)]
        case.inputs.append('trunc.ckpt')
        case.argv = ['train', '--dataset', TINY, '--epochs', '2', '--quiet'] + \
            ['--input', 'tt', '--tt-rank', '4', '--emb-dim', '16', '--hidden', '16', '--seed', '3',
             '--resume', '--checkpoint', case.p('trunc.ckpt')]
        case.names = [['checkpoint'] + path_alts(case.p('trunc.ckpt'))]
        case.cls = 'misc train --resume --checkpoint <truncated checkpoint>'
    elif v in (4, 5):
        # a run that stops on a NaN loss must not replace the outputs it has not earned
        case.expect = 'may'
        case.allow_rc.add(4)
        case.files['out/.keep'] = b''
        args = ['train', '--dataset', TINY, '--epochs', '5', '--quiet', '--lr',
                rng.choice(['1e30', '1e38', 'inf'])]
        args += ['--predictions', case.p('out/p.npy')]
        maybe_good(rng, case, 'out/p.npy', 0.8)
        case.protect4 = ['out/p.npy']
        if v == 5:
            args += ['--input', 'tt', '--export-embeddings', case.p('out/e.npy')]
            maybe_good(rng, case, 'out/e.npy', 0.8)
            case.protect4.append('out/e.npy')
        case.argv = args
        case.names = [['lr', 'nan', 'NaN', 'non-finite', 'nonfinite', 'Inf']]
        case.cls = 'misc train NaN loss (exit 4) over existing --predictions'
    elif v == 6:
        case.argv = ['trian', '--dataset', TINY]
        case.allow_rc.add(2)
        case.names = [['trian']]
        case.cls = 'misc unknown command (exit 2)'
    elif v == 7:
        case.argv = ['train', '--dataset', TINY, '--epochs', '2', '--quiet', '--tt-rnak', '4']
        case.names = [['tt-rnak']]
        case.cls = 'misc unknown option'
    elif v == 8:
        cmd = rng.choice(['train', 'partition', 'info'])
        opt = {'train': '--epochs', 'partition': '--order', 'info': '--split'}[cmd]
        case.argv = [cmd, '--dataset', TINY, opt]
        case.names = [[opt_name(opt)]]
        case.cls = 'misc option without its value (%s %s)' % (cmd, opt)
    elif v == 10:
        case.files['out/.keep'] = b''
        case.argv = ['predict', '--checkpoint', BASE_CKPT, '--dataset', CORA, '--quiet',
                     '--predictions', case.p('out/p.npy')]
        maybe_good(rng, case, 'out/p.npy')
        case.names = [['dataset', 'checkpoint'] + path_alts(CORA)]
        case.cls = 'misc predict --dataset <another dataset than the checkpoint\'s>'
    elif v == 11:
        case.copies.append((TINY, 'ds'))
        case.inputs += ['ds/' + rel for rel in TINY_LINES]
        k = rng.randrange(len(TINY_LINES['raw/edge.csv']))
        u, w = TINY_LINES['raw/edge.csv'][k].split(',')
        case.ops.append(('replace', 'raw/edge.csv', k, '%s,%d' % (u, (int(w) + 1 + rng.randrange(298)) % 300)))
        case.argv = ['predict', '--checkpoint', BASE_CKPT, '--dataset', case.p('ds'), '--quiet']
        case.names = [['dataset', 'checkpoint'] + path_alts(case.p('ds'))]
        case.cls = 'misc predict --dataset <a copy with one edge moved>'
    elif v == 12:
        case.copies.append((BASE_CKPT, 'run.ckpt'))
        case.inputs.append('run.ckpt')
        opt, val = rng.choice([('--tt-rank', '8'), ('--emb-dim', '32'), ('--hidden', '32'),
                               ('--input', 'emb'), ('--model', 'sage')])
        settings = {'--input': 'tt', '--tt-rank': '4', '--emb-dim': '16', '--hidden': '16'}
        settings[opt] = val
        case.argv = ['train', '--dataset', TINY, '--epochs', '4', '--quiet'] + \
            [x for kv in settings.items() for x in kv] + ['--resume', '--checkpoint', case.p('run.ckpt')]
        case.names = [[opt_name(opt), 'checkpoint'] + path_alts(case.p('run.ckpt'))]
        case.cls = 'misc train --resume with %s changed' % opt
    else:
        case.files['gen/keep.txt'] = b'GOOD ' + rng.randbytes(32)
        case.argv = ['generate', '--out', case.p('gen'), '--nodes', '300', '--classes', '3',
                     '--features', '8', '--no-gzip']
        case.names = [['out'] + path_alts(case.p('gen'))]
        case.cls = 'misc generate --out <non-empty folder>'


SCHEDULE = ['value', 'corrupt', 'collide', 'value', 'corrupt', 'value', 'threads', 'collide',
            'value', 'corrupt', 'size', 'value', 'collide', 'corrupt', 'value', 'misc']


def generate_cases(seed, n):
    rng = random.Random(seed)
    counters = {}
    cases = []
    for i in range(n):
        cat = SCHEDULE[i % len(SCHEDULE)]
        k = counters.get(cat, 0)
        counters[cat] = k + 1
        case = Case(i + 1, cat, '', 'fail')
        if cat == 'value':
            gen_value(case, rng)
        elif cat == 'collide':
            gen_collide(case, rng, k)
        elif cat == 'corrupt':
            gen_corrupt(case, rng, k)
        elif cat == 'threads':
            gen_threads(case, rng, k)
        elif cat == 'size':
            gen_size(case, rng, k)
        else:
            gen_misc(case, rng, k)
        cases.append(case)
    return cases


# --------------------------------------------------------------------------------------------
# files

def snapshot(root):
    """relpath -> ('F', sha256) | ('L', link target), for every file and link under root."""
    snap = {}
    if not os.path.lexists(root):
        return snap
    if not os.path.isdir(root) or os.path.islink(root):
        return {'.': file_sig(root)}
    for dirpath, dirnames, filenames in os.walk(root):
        for name in filenames + [d for d in dirnames if os.path.islink(os.path.join(dirpath, d))]:
            full = os.path.join(dirpath, name)
            snap[os.path.relpath(full, root)] = file_sig(full)
    return snap


def file_sig(path):
    if os.path.islink(path):
        return ('L', os.readlink(path))
    try:
        with open(path, 'rb') as f:
            return ('F', hashlib.sha256(f.read()).hexdigest())
    except OSError as e:
        return ('E', str(e))


def diff_snap(before, after):
    msgs = []
    new = sorted(set(after) - set(before))
    gone = sorted(set(before) - set(after))
    changed = sorted(k for k in set(before) & set(after) if before[k] != after[k])
    if new:
        msgs.append('new file(s): ' + ', '.join(new[:5]) + (' ...' if len(new) > 5 else ''))
    if changed:
        msgs.append('changed: ' + ', '.join(changed[:5]) + (' ...' if len(changed) > 5 else ''))
    if gone:
        msgs.append('removed: ' + ', '.join(gone[:5]) + (' ...' if len(gone) > 5 else ''))
    return msgs


def tmp_leftovers(roots):
    found = []
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            for name in filenames + dirnames:
                if fnmatch.fnmatch(name, '*.tmp*'):
                    found.append(os.path.join(dirpath, name))
    return found


def prepare(case):
    if os.path.lexists(case.dir):
        shutil.rmtree(case.dir)
    os.makedirs(case.dir)
    for src, rel in case.copies:
        dst = case.p(rel)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        if os.path.isdir(src):
            shutil.copytree(src, dst)
        else:
            shutil.copyfile(src, dst)
    for rel, data in case.files.items():
        path = case.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'wb') as f:
            f.write(data)
    for rel, target in case.links.items():
        path = case.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.symlink(target, path)
    for rel, target in case.hardlinks.items():
        path = case.p(rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        os.link(case.p(target), path)
    for op in case.ops:
        path = case.p('ds/' + op[1])
        if op[0] == 'replace':
            lines = open(path, 'rb').read().decode('latin-1').split('\n')
            lines[op[2]] = op[3]
            open(path, 'wb').write('\n'.join(lines).encode('latin-1'))
        elif op[0] == 'append':
            data = open(path, 'rb').read()
            if data and not data.endswith(b'\n'):
                data += b'\n'
            open(path, 'wb').write(data + op[2].encode() + b'\n')
        elif op[0] == 'truncate':
            with open(path, 'r+b') as f:
                f.truncate(op[2])
        elif op[0] == 'remove':
            os.remove(path)
        elif op[0] == 'sub':
            text = open(path).read()
            open(path, 'w').write(re.sub(op[2], op[3], text))
        elif op[0] == 'write':
            open(path, 'wb').write(op[2].encode())


# --------------------------------------------------------------------------------------------
# running and checking

def wait_for_binary():
    for _ in range(120):
        if os.path.isfile(BIN) and os.access(BIN, os.X_OK):
            return True
        time.sleep(1)
    return False


def rebuilding(rc, err):
    """The binary or its libraries are being rewritten by a build running beside this test."""
    return rc == 127 and ('error while loading shared libraries' in err or
                          not os.path.isfile(BIN))


def run(argv, env_extra, cwd, timeout, prep=None):
    """Runs BIN; while a concurrent rebuild leaves it unloadable, waits and runs it again."""
    for attempt in range(40):
        if prep is not None:
            prep()
        res = run_once(argv, env_extra, cwd, timeout)
        if not rebuilding(res[0], res[2]):
            return res
        time.sleep(3)
    return res


def run_once(argv, env_extra, cwd, timeout):
    wait_for_binary()
    env = dict(os.environ)
    env.update(env_extra)
    t0 = time.monotonic()
    proc = subprocess.Popen([BIN] + argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
        timed_out = False
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        out, err = proc.communicate()
        timed_out = True
    return proc.returncode, out.decode('utf-8', 'replace'), err.decode('utf-8', 'replace'), \
        timed_out, time.monotonic() - t0


def names_missing(case, err):
    low = err.lower()
    missing = []
    for group in case.names:
        ok = False
        # an option may be named as --tt-rank, tt-rank or tt_rank
        group = list(group) + [a.replace('-', '_') for a in group
                               if isinstance(a, str) and re.fullmatch(r'[a-z-]+', a)]
        for alt in group:
            if isinstance(alt, str):
                if alt.lower() in low:
                    ok = True
            elif alt.search(err):
                ok = True
        if not ok:
            missing.append(' or '.join(a if isinstance(a, str) else '/' + a.pattern + '/'
                                       for a in group))
    return missing


def cache_dir(case):
    if '--cache' in case.argv[:-1]:
        c = case.argv[case.argv.index('--cache') + 1]
        return os.path.normpath(os.path.join(case.dir, c)) if c else None
    return None


def last_json(out):
    lines = [l for l in out.strip().split('\n') if l.strip()]
    if not lines:
        return 'stdout is empty'
    try:
        d = json.loads(lines[-1])
    except ValueError as e:
        return 'last stdout line is not JSON (%s): %s' % (e, lines[-1][:120])
    if not isinstance(d, dict):
        return 'last stdout line is JSON but not an object'
    return None


def check(case, rc, out, err, timed_out, before, after, shared_before, shared_after):
    why = []
    if timed_out:
        return ['no exit within %gs (hang); killed' % TIMEOUT]
    if rc < 0:
        try:
            sname = signal.Signals(-rc).name
        except ValueError:
            sname = str(-rc)
        why.append('killed by signal %s' % sname)
    elif rc == 0:
        if case.expect == 'fail':
            why.append('exit 0: accepted, expected a refusal naming %s' %
                       ' and '.join(' or '.join(str(a) if isinstance(a, str) else '/' + a.pattern + '/'
                                                 for a in g) for g in case.names))
        j = last_json(out)
        if j:
            why.append(j)
        for rel in case.inputs:
            if before.get(rel) != after.get(rel):
                why.append('input changed or removed: %s' % rel)
    elif rc == 4 and 4 in case.allow_rc:
        j = last_json(out)
        if j:
            why.append('exit 4: ' + j)
        for rel in case.protect4 + case.inputs:
            if before.get(rel) != after.get(rel):
                why.append('exit 4 but %s was %s' % (rel, 'written' if rel not in before else
                                                      'replaced' if rel in after else 'removed'))
    else:
        if 2 in case.allow_rc:
            if rc != 2:
                why.append('exit %d, expected 2 (unknown command)' % rc)
        elif rc != 1:
            why.append('exit %d, expected 1%s' % (rc, ' (internal error)' if rc == 3 else ''))
        if not err.strip():
            why.append('stderr is empty')
        else:
            miss = names_missing(case, err)
            if miss:
                why.append('message does not name ' + '; nor '.join(miss))
        if out.strip() and rc != 4:
            why.append('stdout not empty on failure: %r' % out.strip()[:100])
        if case.cat != 'corrupt' or getattr(case, 'loadable', False):
            # a cache entry of a dataset that loaded fine is no output of the failed run
            cache = cache_dir(case)
            after = {k: v for k, v in after.items()
                     if not (cache and k not in before and
                             os.path.join(case.dir, k).startswith(cache + os.sep) and
                             k.endswith('.ttgnn'))}
        why += ['failed run left ' + m for m in diff_snap(before, after)]
    if shared_before != shared_after:
        why += ['shared input ' + m for m in diff_snap(shared_before, shared_after)]
    left = tmp_leftovers([case.dir, TINY, os.path.dirname(BASE_CKPT), os.path.dirname(EDGES), OGBROOT])
    if left:
        why.append('temporary file(s) left: ' + ', '.join(left[:3]))
    return why


def expected_names(case):
    """What a refusal must name, short: the first alternative of every group."""
    out = []
    for group in case.names:
        a = group[0]
        if not isinstance(a, str):
            a = '/' + a.pattern + '/'
        elif a.startswith('/'):
            a = os.path.basename(a.rstrip('/'))
        out.append(a)
    return '+'.join(out)


def shown(case):
    env = ' '.join('%s=%s' % (k, shlex.quote(v)) for k, v in case.env.items())
    toks = []
    for a in case.argv:
        if a.startswith(SCRATCH + '/') and re.fullmatch(r'[\w./+-]*', a[len(SCRATCH):]):
            toks.append('"$S"' + a[len(SCRATCH):])
        elif a.startswith(CORA) and re.fullmatch(r'[\w./+-]*', a):
            toks.append(a)
        else:
            toks.append(shlex.quote(a))
    return ((env + ' ') if env else '') + 'ttgnn ' + ' '.join(toks)


def shared_snapshot():
    snap = {}
    for root in (TINY, BASE_CKPT, EDGES, LABELS_NPY, FEATS_NPY, OGBROOT):
        for k, v in snapshot(root).items():
            snap[os.path.join(os.path.basename(root), k)] = v
    return snap


# --------------------------------------------------------------------------------------------
# setup

def npy_bytes(descr, shape, payload):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (descr, repr(tuple(shape)))
    pad = 64 - (10 + len(header) + 1) % 64
    header = header + ' ' * pad + '\n'
    return b'\x93NUMPY\x01\x00' + struct.pack('<H', len(header)) + header.encode('latin1') + payload


def setup(scratch):
    global TINY, BASE_CKPT, EDGES, LABELS_NPY, FEATS_NPY, OGBROOT, TINY_LINES
    if os.path.lexists(scratch):
        if os.path.isdir(scratch) and (not os.listdir(scratch) or
                                       os.path.exists(os.path.join(scratch, MARKER))):
            shutil.rmtree(scratch)
        else:
            sys.exit('test_cli_fuzz: %s exists and is not a scratch folder of this test '
                     '(no %s); refusing to delete it' % (scratch, MARKER))
    os.makedirs(scratch)
    open(os.path.join(scratch, MARKER), 'w').close()
    env = {}
    TINY = os.path.join(scratch, 'tiny')
    rc, out, err, to, _ = run(['generate', '--out', TINY, '--nodes', '300', '--classes', '3',
                               '--features', '8', '--seed', '1', '--no-gzip'], env, scratch, 60)
    if rc != 0:
        sys.exit('test_cli_fuzz: setup: generate failed (exit %s): %s' % (rc, err[-500:]))
    for dirpath, _, files in os.walk(TINY):
        for name in files:
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, TINY)
            if rel.startswith(('raw/', 'split/')):
                TINY_LINES[rel] = open(full).read().rstrip('\n').split('\n')
    TINY_LINES = dict(sorted(TINY_LINES.items()))
    BASE_CKPT = os.path.join(scratch, 'base', 'base.ckpt')
    os.makedirs(os.path.dirname(BASE_CKPT))
    rc, out, err, to, _ = run(['train', '--dataset', TINY, '--input', 'tt', '--tt-rank', '4',
                               '--emb-dim', '16', '--hidden', '16', '--epochs', '2', '--quiet',
                               '--json', '--checkpoint', BASE_CKPT], env, scratch, 60)
    if rc != 0 or not os.path.isfile(BASE_CKPT):
        sys.exit('test_cli_fuzz: setup: train --checkpoint failed (exit %s): %s' % (rc, err[-500:]))
    el = os.path.join(scratch, 'edgelist')
    os.makedirs(el)
    EDGES = os.path.join(el, 'edges.txt')
    with open(EDGES, 'w') as f:
        f.write('\n'.join(TINY_LINES['raw/edge.csv']) + '\n')
    labels = [int(x) for x in TINY_LINES['raw/node-label.csv']]
    LABELS_NPY = os.path.join(el, 'labels.npy')
    open(LABELS_NPY, 'wb').write(npy_bytes('<i8', (len(labels),), struct.pack('<%dq' % len(labels), *labels)))
    feats = [float(x) for l in TINY_LINES['raw/node-feat.csv'] for x in l.split(',')]
    FEATS_NPY = os.path.join(el, 'feats.npy')
    open(FEATS_NPY, 'wb').write(npy_bytes('<f4', (len(labels), len(feats) // len(labels)),
                                          struct.pack('<%df' % len(feats), *feats)))
    OGBROOT = os.path.join(scratch, 'ogbroot')
    arxiv = os.path.join(OGBROOT, 'arxiv')
    shutil.copytree(TINY, arxiv)
    os.rename(os.path.join(arxiv, 'split', 'random'), os.path.join(arxiv, 'split', 'time'))
    meta = open(os.path.join(arxiv, 'meta.csv')).read()
    meta = re.sub(r'^(splits?),random$', r'\1,time', meta, flags=re.M)
    open(os.path.join(arxiv, 'meta.csv'), 'w').write(meta)


def main():
    global BIN, SCRATCH, CORA, TIMEOUT
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('binary')
    ap.add_argument('cora')
    ap.add_argument('scratch')
    ap.add_argument('--seed', type=int, default=1)
    ap.add_argument('--cases', type=int, default=360)
    ap.add_argument('--timeout', type=float, default=15.0,
                    help='seconds per run; a run still going then is a hang (default 15)')
    ap.add_argument('--only', default=None, help='run only the cases whose class matches REGEX')
    ap.add_argument('--keep', action='store_true', help='keep the folders of passing cases too')
    a = ap.parse_args()
    BIN = os.path.abspath(a.binary)
    CORA = os.path.abspath(a.cora)
    SCRATCH = os.path.abspath(a.scratch)
    TIMEOUT = a.timeout
    os.environ.setdefault('OMP_NUM_THREADS', '2')
    os.environ.setdefault('OMP_PROC_BIND', 'false')
    if not wait_for_binary():
        sys.exit('test_cli_fuzz: no executable %s' % BIN)
    t_start = time.monotonic()
    setup(SCRATCH)
    cora_before = snapshot(CORA)
    shared_before = shared_snapshot()
    cases = generate_cases(a.seed, a.cases)
    if a.only:
        cases = [c for c in cases if re.search(a.only, c.cls)]
    print('# ttgnn CLI fuzz: seed %d, %d cases, timeout %gs per run' % (a.seed, len(cases), TIMEOUT))
    print('# BIN=%s' % BIN)
    print('# S=%s   (case folders: $S/cases/NNN; the failing ones are kept)' % SCRATCH)
    fails = []
    for case in cases:
        snaps = {}

        def prep(case=case, snaps=snaps):
            prepare(case)
            snaps['before'] = snapshot(case.dir)
        rc, out, err, timed_out, secs = run(case.argv, case.env, case.dir, TIMEOUT, prep)
        before = snaps['before']
        after = snapshot(case.dir)
        shared_after = shared_snapshot()
        why = check(case, rc, out, err, timed_out, before, after, shared_before, shared_after)
        errlines = [l for l in err.strip().split('\n') if l.strip()]
        last = errlines[-1].strip() if errlines else ''
        if len(last) > 200:
            last = last[:200] + '...'
        status = 'TIMEOUT' if timed_out else str(rc)
        print('%-4s #%03d %s[%s] %s rc=%s %.2fs | %s | %s' % (
            'FAIL' if why else 'ok', case.num, 'must_fail' if case.expect == 'fail' else 'may_succeed',
            expected_names(case), case.cat, status, secs, shown(case), last), flush=True)
        if why:
            print('       why: ' + '; '.join(why), flush=True)
            fails.append((case, status, last, why))
        elif not a.keep:
            shutil.rmtree(case.dir, ignore_errors=True)
        if shared_after != shared_before:
            shared_before = shared_after  # report each change once
    if snapshot(CORA) != cora_before:
        print('FAIL the cora folder changed: ' + '; '.join(diff_snap(cora_before, snapshot(CORA))))
        fails.append((None, '', '', ['cora changed']))
    left = tmp_leftovers([SCRATCH, CORA])
    if left:
        print('FAIL temporary files left in the scratch tree: ' + ', '.join(left[:10]))
        fails.append((None, '', '', ['tmp files']))
    print('\n# summary: %d cases, %d ok, %d FAIL (seed %d, %.1f s)' % (
        len(cases), len(cases) - len(fails), len(fails), a.seed, time.monotonic() - t_start))
    if fails:
        by = {}
        for case, status, last, why in fails:
            if case is None:
                continue
            by.setdefault(case.cls, []).append(case.num)
        print('# failing classes:')
        for cls, nums in sorted(by.items()):
            print('#   %-70s cases %s' % (cls, ','.join('%03d' % n for n in nums)))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
