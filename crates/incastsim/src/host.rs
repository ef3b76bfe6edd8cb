//! How the host backs the simulator's heap: 4 KiB pages or 2 MiB transparent huge pages.
//!
//! Results never depend on it; speed at scale does. A k = 32 fat-tree's state (port FIFOs,
//! flows, paths: over 100 MB) is read at random, one cache line here and one there, so with
//! 4 KiB pages nearly every access also misses the TLB, and in a virtual machine each miss is
//! a two-level page walk. With the heap on 2 MiB pages the large runs (S5, web-search at k = 16)
//! run faster (measured in docs/perf-log.md), at the same peak memory: glibc madvises only the
//! heap it grows in 2 MiB steps, so a small run (S1, S3) keeps its few MB.
//!
//! glibc backs its heap with huge pages when the tunable `glibc.malloc.hugetlb=1` is set, and
//! reads tunables only when a process starts. So `incastsim run` and `sweep` re-execute
//! themselves once with it added to `GLIBC_TUNABLES` ([`reexec_with_huge_pages`], with the
//! mmap threshold raised so that large arrays come from that heap too) when a
//! run is large enough to gain ([`worth_huge_pages`]: from 512 hosts) and the kernel's mode is
//! `madvise` (under `always` every heap gets huge pages anyway), unless
//! `INCASTSIM_HUGE_PAGES=off`. A small run keeps 4 KiB pages: its state fits the TLB's reach,
//! and glibc's 2 MiB steps would add up to half a MB to S1's 7.5 MB. The benchmarks
//! re-execute always. A program that embeds the library chooses for itself (call that
//! function first in `main`, set the tunable, or use an allocator that asks for huge pages).
//! Manifests record the answer of [`heap_on_huge_pages`], since wall times depend on it.

use incastsim_config::Config;

/// Hosts from which a run's heap goes on huge pages: a run with a heap of a few MB runs as
/// fast either way, a fabric of a thousand hosts faster (docs/perf-log.md).
pub const HUGE_PAGES_FROM_HOSTS: u64 = 512;

/// Whether a run of `cfg` is large enough for huge pages to pay (see the module doc).
pub fn worth_huge_pages(cfg: &Config) -> bool {
    cfg.topology.host_count(cfg.senders) >= HUGE_PAGES_FROM_HOSTS
}

/// The environment variable that turns the binary's re-execution off (`off` or `0`).
pub const OPT_OUT_VAR: &str = "INCASTSIM_HUGE_PAGES";

/// The glibc tunable that backs malloc's heap with transparent huge pages (glibc ≥ 2.35).
const HUGETLB_TUNABLE: &str = "glibc.malloc.hugetlb";

/// The kernel's transparent-huge-page mode (`/sys/kernel/mm/transparent_hugepage/enabled`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ThpMode {
    /// Every anonymous mapping may get huge pages.
    Always,
    /// Only mappings a program asked for with `madvise(MADV_HUGEPAGE)`.
    Madvise,
    /// None.
    Never,
}

impl ThpMode {
    /// Reads the mode from the sysfs file's text, where the bracketed word is the one in force
    /// (`always [madvise] never`).
    pub fn parse(text: &str) -> Option<ThpMode> {
        let chosen = text.split_whitespace().find(|w| w.starts_with('['))?;
        match chosen.trim_matches(|c| c == '[' || c == ']') {
            "always" => Some(ThpMode::Always),
            "madvise" => Some(ThpMode::Madvise),
            "never" => Some(ThpMode::Never),
            _ => None,
        }
    }

    /// This machine's mode, if it has transparent huge pages at all.
    pub fn of_this_host() -> Option<ThpMode> {
        let text = std::fs::read_to_string("/sys/kernel/mm/transparent_hugepage/enabled").ok()?;
        ThpMode::parse(&text)
    }
}

/// The glibc tunable above which `malloc` maps a block of its own instead of carving it from
/// the heap.
const MMAP_THRESHOLD_TUNABLE: &str = "glibc.malloc.mmap_threshold";

/// Its value with huge pages: glibc's largest (32 MiB on 64-bit). Why: a block mapped on its
/// own starts wherever the kernel puts it, 4 KiB-aligned, and only its whole 2 MiB pages can
/// be huge; the rest of it stays on 4 KiB pages. On S5 the blocks over glibc's default 128 KiB
/// are the hot arrays (the ports, the diagnostics', the connections'), and they stayed on
/// small pages. From the heap, which glibc grows in 2 MiB steps, nearly all is on huge pages
/// (the S5 gain is in docs/perf-log.md).
const MMAP_THRESHOLD_BYTES: u64 = 32 << 20;

/// The glibc tunable that caps the number of malloc arenas.
const ARENA_MAX_TUNABLE: &str = "glibc.malloc.arena_max";

/// Its value with huge pages: one arena, the main one. Why: the huge-page tunable puts glibc's
/// main heap (grown by `brk`) on huge pages, but a thread other than the first gets an arena
/// of its own, in heaps glibc maps for it, which stay on 4 KiB pages. A sweep runs on rayon's
/// worker threads, whose memory then stayed on small pages (S5 in a sweep: docs/perf-log.md,
/// session 18). With one arena every thread allocates from the main heap; the event loop allocates
/// almost nothing per event, so the arena's shared lock costs next to nothing.
const ARENA_MAX: u32 = 1;

/// `GLIBC_TUNABLES` with the huge-page tunable added (and the mmap threshold and the arena
/// cap, unless the user set them), or `None` if it names the huge-page tunable already (whatever its value: a user's
/// own setting wins, and a process started with it is never re-executed again).
pub fn tunables_with_huge_pages(current: Option<&str>) -> Option<String> {
    let current = current.unwrap_or("");
    let names = |name: &str| {
        current
            .split(':')
            .any(|kv| kv.split('=').next() == Some(name))
    };
    if names(HUGETLB_TUNABLE) {
        return None;
    }
    let mut tunables: Vec<String> = Vec::new();
    if !current.is_empty() {
        tunables.push(current.to_string());
    }
    tunables.push(format!("{HUGETLB_TUNABLE}=1"));
    if !names(MMAP_THRESHOLD_TUNABLE) {
        tunables.push(format!("{MMAP_THRESHOLD_TUNABLE}={MMAP_THRESHOLD_BYTES}"));
    }
    if !names(ARENA_MAX_TUNABLE) {
        tunables.push(format!("{ARENA_MAX_TUNABLE}={ARENA_MAX}"));
    }
    Some(tunables.join(":"))
}

/// Re-executes this program with the huge-page tunable when it would change anything: Linux
/// with glibc, the kernel in `madvise` mode, `GLIBC_TUNABLES` not naming the tunable yet (so
/// the new process never re-executes again), and `INCASTSIM_HUGE_PAGES` not `off`/`0`. Call it
/// before any thread starts and before anything is printed (the new process starts over).
/// Returns (and the program goes on as it is) if
/// any of that fails; otherwise it does not return.
pub fn reexec_with_huge_pages() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        use std::os::unix::process::CommandExt;

        if std::env::var(OPT_OUT_VAR).is_ok_and(|v| v == "off" || v == "0") {
            return;
        }
        if ThpMode::of_this_host() != Some(ThpMode::Madvise) {
            return;
        }
        let current = std::env::var("GLIBC_TUNABLES").ok();
        let Some(tunables) = tunables_with_huge_pages(current.as_deref()) else {
            return;
        };
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let mut args = std::env::args_os();
        let mut command = std::process::Command::new(exe);
        if let Some(arg0) = args.next() {
            command.arg0(arg0);
        }
        // `exec` returns only if it failed: then run as we are.
        let _failed = command.args(args).env("GLIBC_TUNABLES", tunables).exec();
    }
}

/// Whether `tunables` (a `GLIBC_TUNABLES` value) asks glibc for a heap on huge pages (`1`:
/// transparent, `2`: reserved hugetlbfs pages).
fn tunables_ask_huge_pages(tunables: &str) -> bool {
    tunables.split(':').any(|kv| {
        kv.split_once('=')
            .is_some_and(|(k, v)| k == HUGETLB_TUNABLE && (v == "1" || v == "2"))
    })
}

/// Whether this process's heap may be on huge pages: the kernel's mode is `always`, or it is
/// `madvise` and glibc was started with the huge-page tunable.
pub fn heap_on_huge_pages() -> bool {
    match ThpMode::of_this_host() {
        Some(ThpMode::Always) => true,
        Some(ThpMode::Madvise) => {
            cfg!(all(target_os = "linux", target_env = "gnu"))
                && std::env::var("GLIBC_TUNABLES").is_ok_and(|t| tunables_ask_huge_pages(&t))
        }
        Some(ThpMode::Never) | None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bracketed_word_is_the_mode() {
        assert_eq!(
            ThpMode::parse("always [madvise] never\n"),
            Some(ThpMode::Madvise)
        );
        assert_eq!(
            ThpMode::parse("[always] madvise never"),
            Some(ThpMode::Always)
        );
        assert_eq!(
            ThpMode::parse("always madvise [never]"),
            Some(ThpMode::Never)
        );
        assert_eq!(ThpMode::parse("always madvise never"), None);
        assert_eq!(ThpMode::parse(""), None);
    }

    #[test]
    fn the_tunable_is_added_once_and_a_users_own_setting_wins() {
        const OURS: &str = "glibc.malloc.hugetlb=1:glibc.malloc.mmap_threshold=33554432:\
                            glibc.malloc.arena_max=1";
        assert_eq!(tunables_with_huge_pages(None).as_deref(), Some(OURS));
        assert_eq!(tunables_with_huge_pages(Some("")).as_deref(), Some(OURS));
        // A user's own arena cap stays.
        assert_eq!(
            tunables_with_huge_pages(Some("glibc.malloc.arena_max=2")).as_deref(),
            Some(
                "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1:\
                 glibc.malloc.mmap_threshold=33554432"
            )
        );
        assert_eq!(
            tunables_with_huge_pages(Some("glibc.malloc.hugetlb=0")),
            None
        );
        assert_eq!(
            tunables_with_huge_pages(Some("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1")),
            None
        );
        // A user's own mmap threshold stays.
        assert_eq!(
            tunables_with_huge_pages(Some("glibc.malloc.mmap_threshold=65536")).as_deref(),
            Some(
                "glibc.malloc.mmap_threshold=65536:glibc.malloc.hugetlb=1:glibc.malloc.arena_max=1"
            )
        );
        // A longer name that starts the same is another tunable.
        assert_eq!(
            tunables_with_huge_pages(Some("glibc.malloc.hugetlbx=1")).as_deref(),
            Some(format!("glibc.malloc.hugetlbx=1:{OURS}").as_str())
        );
    }

    #[test]
    fn only_values_one_and_two_ask_for_huge_pages() {
        assert!(tunables_ask_huge_pages("glibc.malloc.hugetlb=1"));
        assert!(tunables_ask_huge_pages("a=1:glibc.malloc.hugetlb=2"));
        assert!(!tunables_ask_huge_pages("glibc.malloc.hugetlb=0"));
        assert!(!tunables_ask_huge_pages("glibc.malloc.arena_max=1"));
        assert!(!tunables_ask_huge_pages(""));
    }
}
