#include "models/memory/recompute_plan.hpp"

#include "core/error.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

namespace ttgnn {

namespace {

using Op = RecomputeOp;

/// A schedule of one segment [s, t] of the chain: its ops, cost, peak above the live bytes at
/// its start, and the change of the live bytes from its start to its end.
struct Segment {
  std::vector<Op> ops;
  double cost = 0;
  std::int64_t peak = 0, exit = 0;
  bool ok = false;
};

class Solver {
public:
  explicit Solver(ChainCost const &c) : c_(c), L_(static_cast<int>(c.stages.size())) {}

  /// Cheapest schedule of [s, t] with peak <= m (ok false when none); min_peak: the schedule
  /// with the least peak instead.
  Segment best(int s, int t, std::int64_t m, bool min_peak) {
    const auto key = std::make_tuple(s, t, min_peak ? std::int64_t(0) : m);
    auto &memo = min_peak ? peak_memo_ : cost_memo_;
    auto it = memo.find(key);
    if (it != memo.end())
      return it->second;
    Segment r;
    auto consider = [&](Segment const &cand) {
      if (!cand.ok || (!min_peak && cand.peak > m))
        return;
      const bool better =
          !r.ok || (min_peak ? std::tie(cand.peak, cand.cost) < std::tie(r.peak, r.cost)
                             : std::tie(cand.cost, cand.peak) < std::tie(r.cost, r.peak));
      if (better)
        r = cand;
    };
    if (s == t)
      consider(base(t));
    else {
      consider(keep_all_first(s, t, m, min_peak));
      for (int sp = s + 1; sp <= t; ++sp)
        consider(checkpoint_at(s, t, sp, m, min_peak));
    }
    memo.emplace(key, r);
    return r;
  }

private:
  StageCost const &st(int l) const { return c_.stages[l]; }
  std::int64_t act(int l) const { return l == L_ ? c_.output_bytes : st(l).input_bytes; }
  std::int64_t grad(int l) const { return l == L_ ? 0 : st(l).grad_bytes; }
  /// Bytes a segment ending at t frees at its end (A_{t+1}, D_{t+1}; none at the top).
  std::int64_t tail(int t) const { return t + 1 == L_ ? 0 : act(t + 1) + grad(t + 1); }

  /// [t, t]: the forward (top) or the recomputation of S_t, then the backward.
  Segment base(int t) const {
    Segment r;
    r.ok = true;
    std::int64_t live = 0;
    if (t + 1 == L_) {
      r.ops.push_back({Op::forward_all, t});
      r.cost += st(t).forward_cost;
      r.peak = st(t).saved_bytes + st(t).forward_scratch + act(t + 1);
      live = st(t).saved_bytes + act(t + 1);
    } else { // a no-op for a stage that keeps nothing (the executor skips it)
      r.ops.push_back({Op::recompute, t});
      r.cost += st(t).recompute_cost;
      r.peak = st(t).saved_bytes + st(t).recompute_scratch;
      live = st(t).saved_bytes;
    }
    r.ops.push_back({Op::backward, t});
    r.cost += st(t).backward_cost;
    r.peak = std::max(r.peak, live - act(t + 1) + st(t).backward_extra());
    r.exit = grad(t) - tail(t);
    return r;
  }

  /// forward_all(s), then [s + 1, t], then backward(s).
  Segment keep_all_first(int s, int t, std::int64_t m, bool min_peak) {
    const std::int64_t o = st(s).saved_bytes + act(s + 1);
    Segment sub = best(s + 1, t, m - o, min_peak);
    if (!sub.ok)
      return sub;
    Segment r;
    r.ok = true;
    r.ops.push_back({Op::forward_all, s});
    r.ops.insert(r.ops.end(), sub.ops.begin(), sub.ops.end());
    r.ops.push_back({Op::backward, s});
    r.cost = st(s).forward_cost + sub.cost + st(s).backward_cost;
    r.peak = std::max({st(s).saved_bytes + st(s).forward_scratch + act(s + 1), o + sub.peak,
                       o + sub.exit - act(s + 1) + st(s).backward_extra()});
    r.exit = grad(s) - tail(t);
    return r;
  }

  /// forward_keep_input(s), forward_none(s + 1 .. sp - 1), then [sp, t], then [s, sp - 1].
  Segment checkpoint_at(int s, int t, int sp, std::int64_t m, bool min_peak) {
    Segment r;
    r.ok = true;
    for (int k = s; k < sp; ++k) {
      r.ops.push_back({k == s ? Op::forward_keep_input : Op::forward_none, k});
      r.cost += st(k).forward_cost;
      const std::int64_t before = k == s ? 0 : act(k);
      r.peak = std::max(r.peak, before + st(k).saved_bytes + st(k).forward_scratch + act(k + 1));
    }
    Segment right = best(sp, t, m - act(sp), min_peak);
    if (!right.ok)
      return right;
    const std::int64_t o2 = act(sp) + right.exit;
    Segment left = best(s, sp - 1, m - o2, min_peak);
    if (!left.ok)
      return left;
    r.ops.insert(r.ops.end(), right.ops.begin(), right.ops.end());
    r.ops.insert(r.ops.end(), left.ops.begin(), left.ops.end());
    r.cost += right.cost + left.cost;
    r.peak = std::max({r.peak, act(sp) + right.peak, o2 + left.peak});
    r.exit = o2 + left.exit;
    return r;
  }

  ChainCost const &c_;
  int L_;
  std::map<std::tuple<int, int, std::int64_t>, Segment> cost_memo_, peak_memo_;
};

void check_chain(ChainCost const &chain) {
  if (chain.stages.empty())
    throw ConfigError("recompute plan: the chain has no stages");
}

double base_cost_of(ChainCost const &chain) {
  double c = 0;
  for (auto const &s : chain.stages)
    c += s.forward_cost + s.backward_cost;
  return c;
}

void enumerate(int s, int t, int L, std::vector<std::vector<Op>> &out) {
  if (s == t) {
    std::vector<Op> ops;
    ops.push_back({t + 1 == L ? Op::forward_all : Op::recompute, t});
    ops.push_back({Op::backward, t});
    out.push_back(ops);
    return;
  }
  std::vector<std::vector<Op>> subs;
  enumerate(s + 1, t, L, subs);
  for (auto const &sub : subs) {
    std::vector<Op> ops{{Op::forward_all, s}};
    ops.insert(ops.end(), sub.begin(), sub.end());
    ops.push_back({Op::backward, s});
    out.push_back(ops);
  }
  for (int sp = s + 1; sp <= t; ++sp) {
    std::vector<std::vector<Op>> rights, lefts;
    enumerate(sp, t, L, rights);
    enumerate(s, sp - 1, L, lefts);
    for (auto const &right : rights)
      for (auto const &left : lefts) {
        std::vector<Op> ops;
        for (int k = s; k < sp; ++k)
          ops.push_back({k == s ? Op::forward_keep_input : Op::forward_none, k});
        ops.insert(ops.end(), right.begin(), right.end());
        ops.insert(ops.end(), left.begin(), left.end());
        out.push_back(ops);
      }
  }
}

} // namespace

std::size_t RecomputePlan::forward_ops() const {
  std::size_t n = 0;
  while (n < ops.size() && ops[n].kind != RecomputeOp::backward)
    ++n;
  return n;
}

std::vector<std::string> RecomputePlan::stage_modes() const {
  std::vector<std::string> modes;
  for (std::size_t i = 0; i < forward_ops(); ++i)
    modes.push_back(ops[i].kind == RecomputeOp::forward_all          ? "all"
                    : ops[i].kind == RecomputeOp::forward_keep_input ? "input"
                                                                     : "none");
  return modes;
}

RecomputePlan simulate_schedule(ChainCost const &chain, std::vector<RecomputeOp> const &ops) {
  check_chain(chain);
  const int L = static_cast<int>(chain.stages.size());
  auto bytes_a = [&](int l) { return l == L ? chain.output_bytes : chain.stages[l].input_bytes; };
  std::vector<bool> a(L + 1, false), s(L, false), d(L + 1, false);
  a[0] = true;
  std::int64_t live = 0;
  RecomputePlan p;
  p.ops = ops;
  p.base_cost = base_cost_of(chain);
  auto fail = [&](std::size_t i, std::string const &why) {
    throw ConfigError("recompute plan: operation " + std::to_string(i) + " of '" + to_string(ops) +
                      "': " + why);
  };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const int l = ops[i].stage;
    if (l < 0 || l >= L)
      fail(i, "no stage " + std::to_string(l));
    StageCost const &c = chain.stages[l];
    const bool has_saved = c.saved_bytes > 0;
    switch (ops[i].kind) {
    case RecomputeOp::forward_all:
    case RecomputeOp::forward_keep_input:
    case RecomputeOp::forward_none:
      if (!a[l] || a[l + 1])
        fail(i, "the forward needs its input and not its output live");
      p.peak_bytes =
          std::max(p.peak_bytes, live + c.saved_bytes + c.forward_scratch + bytes_a(l + 1));
      live += bytes_a(l + 1);
      a[l + 1] = true;
      p.cost += c.forward_cost;
      if (ops[i].kind == RecomputeOp::forward_all) {
        live += c.saved_bytes;
        s[l] = true;
      } else if (ops[i].kind == RecomputeOp::forward_none && l > 0) {
        live -= bytes_a(l);
        a[l] = false;
      }
      if (l + 1 == L)
        d[L] = true; // the caller's logits gradient
      break;
    case RecomputeOp::recompute:
      if (!a[l] || !a[l + 1] || s[l])
        fail(i, "recompute needs the stage's input and output live and its saved part not");
      p.peak_bytes = std::max(p.peak_bytes, live + c.saved_bytes + c.recompute_scratch);
      live += c.saved_bytes;
      s[l] = true;
      p.cost += c.recompute_cost;
      break;
    case RecomputeOp::backward:
      if (!a[l] || !a[l + 1] || (has_saved && !s[l]) || !d[l + 1])
        fail(i, "the backward needs the stage's input, output, saved part and output gradient");
      live -= bytes_a(l + 1); // read first (a ReLU's sign), freed before D_l is made
      p.peak_bytes = std::max(p.peak_bytes, live + c.backward_extra());
      live += c.grad_bytes - (s[l] ? c.saved_bytes : 0) -
              (l + 1 < L ? chain.stages[l + 1].grad_bytes : 0);
      s[l] = false;
      a[l + 1] = false;
      d[l + 1] = false;
      d[l] = true;
      p.cost += c.backward_cost;
      break;
    }
  }
  if (!d[0])
    throw ConfigError("recompute plan: '" + to_string(ops) + "' does not reach stage 0's backward");
  return p;
}

RecomputePlan keep_all_schedule(ChainCost const &chain) {
  check_chain(chain);
  const int L = static_cast<int>(chain.stages.size());
  std::vector<RecomputeOp> ops;
  for (int l = 0; l < L; ++l)
    ops.push_back({RecomputeOp::forward_all, l});
  for (int l = L - 1; l >= 0; --l)
    ops.push_back({RecomputeOp::backward, l});
  return simulate_schedule(chain, ops);
}

RecomputePlan solve_recompute(ChainCost const &chain, std::int64_t limit_bytes) {
  check_chain(chain);
  Solver solver(chain);
  const Segment r = solver.best(0, static_cast<int>(chain.stages.size()) - 1, limit_bytes, false);
  if (!r.ok)
    return {};
  return simulate_schedule(chain, r.ops);
}

std::int64_t min_recompute_bytes(ChainCost const &chain) {
  check_chain(chain);
  Solver solver(chain);
  return solver.best(0, static_cast<int>(chain.stages.size()) - 1, 0, true).peak;
}

std::vector<std::vector<RecomputeOp>> all_recompute_schedules(int num_stages) {
  if (num_stages < 1)
    throw ConfigError("all_recompute_schedules: need at least one stage");
  std::vector<std::vector<RecomputeOp>> out;
  enumerate(0, num_stages - 1, num_stages, out);
  return out;
}

std::string to_string(std::vector<RecomputeOp> const &ops) {
  std::string s;
  for (auto const &op : ops) {
    static char const *names[] = {"F_all", "F_ck", "F_none", "R", "B"};
    s +=
        (s.empty() ? "" : " ") + std::string(names[op.kind]) + "(" + std::to_string(op.stage) + ")";
  }
  return s;
}

} // namespace ttgnn
