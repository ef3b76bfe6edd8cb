#!/usr/bin/env bash
# The recipes of ARCHITECTURE.md ("Adding things", "How to add a scheme") are complete: in a
# scratch worktree, add a dummy built-in congestion controller (`fixed_window`) and a dummy
# built-in scheme (`fixed_rto`) by touching only the files the recipes list, build the CLI, and
# check that both are chosen by name, listed, named in errors and written into runs.csv.
#
# Usage: scripts/recipe-test.sh   (from anywhere in the repository; uses ./target for the build)
set -euo pipefail
root=$(git rev-parse --show-toplevel)
cd "$root"
scratch=$(mktemp -d)
trap 'git -C "$root" worktree remove --force "$scratch/tree" >/dev/null 2>&1 || true; rm -rf "$scratch"' EXIT
git worktree add --quiet --detach "$scratch/tree" HEAD
cd "$scratch/tree"

python3 - <<'EOF'
import re

def edit(path, old, new, count=1):
    s = open(path).read()
    if old not in s:
        raise SystemExit(f"recipe-test: {path} no longer has {old!r}: update the recipe and this test")
    open(path, "w").write(s.replace(old, new, count))

def append(path, text):
    open(path, "a").write(text)

# ---- A congestion controller (ARCHITECTURE.md, "Adding things": its type in cc.rs, one line in
# ---- the builtin_controllers! declaration of cc/builtin.rs; no parameters, so nothing else).
append("crates/tcp/src/cc.rs", '''
/// Recipe test: a controller that never changes the window.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FixedWindow;

impl CongestionControl for FixedWindow {
    fn on_ack(&mut self, _w: &mut Window, _now: Time, _acked: u64, _rtt: Option<Duration>) {}
    fn state(&self, w: &Window) -> CcState {
        CcState::of_window(w)
    }
}
''')
edit("crates/tcp/src/cc/builtin.rs",
     "CcControl, CongestionControl, Cubic,",
     "CcControl, CongestionControl, FixedWindow, Cubic,")
edit("crates/tcp/src/cc/builtin.rs",
     '    Dctcp(Dctcp) = "dctcp", p => Dctcp::from_config(p.dctcp);\n',
     '    Dctcp(Dctcp) = "dctcp", p => Dctcp::from_config(p.dctcp);\n'
     '    /// Recipe test.\n    FixedWindow(FixedWindow) = "fixed_window", _p => FixedWindow;\n')

# ---- A scheme (ARCHITECTURE.md, "How to add a scheme": its type in crates/schemes/src/, its
# ---- variant and dispatch line in lib.rs, its parameters and declaration line in
# ---- config/scheme.rs, its construction in plan/schemes.rs).
open("crates/schemes/src/fixed_rto.rs", "w").write('''//! Recipe test: every retransmission timeout is a fixed duration.

use incastsim_core::Duration;
use incastsim_tcp::policy::{SenderPolicy, SenderView, hooks};

/// Arms every RTO at `rto`.
#[derive(Clone, Copy, Debug)]
pub struct FixedRto {
    /// The timeout.
    pub rto: Duration,
}

impl SenderPolicy for FixedRto {
    fn hooks(&self) -> u16 {
        hooks::RTO
    }
    fn retransmission_timeout(&mut self, _view: &SenderView, _rfc6298_rto: Duration) -> Duration {
        self.rto
    }
}
''')
edit("crates/schemes/src/lib.rs", "pub mod dsr;\n", "pub mod dsr;\npub mod fixed_rto;\n")
edit("crates/schemes/src/lib.rs",
     "    Plato(PlatoSender),\n",
     "    Plato(PlatoSender),\n    /// Recipe test.\n    FixedRto(fixed_rto::FixedRto),\n")
edit("crates/schemes/src/lib.rs",
     "            SenderScheme::Plato($p) => $call,\n",
     "            SenderScheme::Plato($p) => $call,\n            SenderScheme::FixedRto($p) => $call,\n")
append("crates/config/src/scheme.rs", '''
/// Recipe test: the parameters of `fixed_rto`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FixedRtoParams {
    /// The timeout.
    pub rto: Dur,
}

impl Default for FixedRtoParams {
    fn default() -> Self {
        FixedRtoParams {
            rto: Dur(Duration::from_ms(5)),
        }
    }
}

impl SchemeParams for FixedRtoParams {}
''')
s = open("crates/config/src/scheme.rs").read()
m = re.search(r"builtin_schemes! \{.*?\n\}\n", s, re.S)
if not m:
    raise SystemExit("recipe-test: no builtin_schemes! declaration in config/scheme.rs")
decl = m.group(0)
s = s.replace(decl, decl[:-2] + '    /// Recipe test.\n    FixedRto(FixedRtoParams) = "fixed_rto", "recipe test: every RTO is `rto`";\n}\n')
open("crates/config/src/scheme.rs", "w").write(s)
edit("crates/scenario/src/plan/schemes.rs",
     "        SchemeConfig::Plato(_) => SenderScheme::Plato(PlatoSender::default()),\n",
     "        SchemeConfig::Plato(_) => SenderScheme::Plato(PlatoSender::default()),\n"
     "        SchemeConfig::FixedRto(p) => {\n"
     "            SenderScheme::FixedRto(incastsim_schemes::fixed_rto::FixedRto { rto: p.rto.0 })\n"
     "        }\n")
EOF

# Only the recipes' files changed.
allowed="crates/config/src/scheme.rs
crates/scenario/src/plan/schemes.rs
crates/schemes/src/fixed_rto.rs
crates/schemes/src/lib.rs
crates/tcp/src/cc.rs
crates/tcp/src/cc/builtin.rs"
changed=$(git status --porcelain --untracked-files=all | awk '{ print $2 }' | sort)
extra=$(comm -23 <(echo "$changed") <(echo "$allowed"))
if [ -n "$extra" ]; then
  echo "recipe-test: files outside the recipes changed: $extra"
  exit 1
fi

CARGO_TARGET_DIR="$root/target/recipe-test" cargo build -q --locked -p incastsim-cli
bin="$root/target/recipe-test/debug/incastsim"
out="$scratch/out"
"$bin" run configs/incast-classic.yaml --set senders=4 --set workload.blocks=2 \
  --set tcp.congestion_control=fixed_window --set 'scheme={name: fixed_rto, rto: 3ms}' \
  --out "$out" >/dev/null
header=$(head -1 "$out/runs.csv")
row=$(sed -n 2p "$out/runs.csv")
col() { echo "$header" | tr ',' '\n' | grep -nx "$1" | cut -d: -f1; }
[ "$(echo "$row" | cut -d, -f"$(col congestion_control)")" = fixed_window ] || { echo "recipe-test: runs.csv congestion_control is not fixed_window"; exit 1; }
[ "$(echo "$row" | cut -d, -f"$(col scheme)")" = fixed_rto ] || { echo "recipe-test: runs.csv scheme is not fixed_rto"; exit 1; }
grep -q '^ *rto: 3ms' "$out/config.resolved.yaml" || { echo "recipe-test: the resolved config lacks scheme.rto"; exit 1; }
# Outputs are captured, then searched: `cmd | grep -q` under pipefail fails when grep exits at its
# first match and the command, still writing, gets SIGPIPE.
schemes=$("$bin" schemes)
grep -q fixed_rto <<<"$schemes" || { echo "recipe-test: 'incastsim schemes' does not list fixed_rto"; exit 1; }
if err=$("$bin" check configs/incast-classic.yaml --set tcp.congestion_control=nosuch 2>&1); then
  echo "recipe-test: an unknown controller was accepted"; exit 1
fi
grep -q fixed_window <<<"$err" || { echo "recipe-test: the unknown-controller error does not list fixed_window: $err"; exit 1; }
echo "recipe-test: a controller and a scheme added through the recipes' files only: passed"
