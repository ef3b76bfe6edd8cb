//! `incastsim model`: the papers' closed-form incast models, evaluated from the command line.
//!
//! Each sub-command prints a CSV table on stdout (one row per parameter combination). The
//! formulas and their interpretation are documented in the `incastsim-models` crate.

use anyhow::{Context, Result, bail};
use clap::Subcommand;
use incastsim::models::book::{BookParams, block_packets_from_sru, pps_to_mbps};
use incastsim::models::packet_size::n_max_bound;
use incastsim::models::rto::{expected_max_rto, p_max_rto_greater, var_max_rto, var_max_rto_bound};
use incastsim::scenario::units::{parse_bytes, parse_duration, parse_rate};
use std::fmt;

#[derive(clap::Args, Debug)]
pub struct ModelArgs {
    #[command(subcommand)]
    command: ModelCommand,
}

#[derive(Subcommand, Debug)]
enum ModelCommand {
    /// E[max RTO] and its variance for N senders drawing RTOs uniformly in
    /// [RTO_min - delta/2, RTO_min + delta/2] (RTO randomization paper, Eq. 4, 6, 7).
    RtoMax(RtoMaxArgs),
    /// The largest number of senders N < (B + 2CT)/(5L) for which every flow's window stays above
    /// 5 packets (smaller-packets paper, Eq. 3).
    Nmax(NmaxArgs),
    /// The Kulkarni-Agrawal incast throughput models: TD-only (Eq. 3.21), Full (Eq. 3.39) and
    /// Split (Eq. 3.40), in packets/s and Mbps.
    Book(BookArgs),
}

#[derive(clap::Args, Debug)]
struct RtoMaxArgs {
    /// RTO_min, the centre of the randomization interval.
    #[arg(long, value_name = "DURATION", default_value = "10ms", value_parser = secs)]
    rto_min: Secs,
    /// Delta, the length of the randomization interval.
    #[arg(long, value_name = "DURATION", default_value = "4ms", value_parser = secs)]
    delta: Secs,
    /// Numbers of senders N, comma-separated.
    #[arg(long, value_name = "N,...", value_delimiter = ',', default_value = "4,8,16,32,64,128,256",
          value_parser = sender_count)]
    senders: Vec<u64>,
    /// Also print P(max RTO > this duration) (Eq. 4).
    #[arg(long, value_name = "DURATION", value_parser = secs)]
    exceeds: Option<Secs>,
}

#[derive(clap::Args, Debug)]
struct NmaxArgs {
    /// B, the switch port buffer (comma-separated list allowed). KB = 1000 B, KiB = 1024 B.
    #[arg(long, value_name = "BYTES,...", value_delimiter = ',', default_value = "32KB", value_parser = bytes)]
    buffer: Vec<Bytes>,
    /// C, the per-server link rate.
    #[arg(long, value_name = "RATE", default_value = "1Gbps", value_parser = rate)]
    rate: Rate,
    /// T, read as the one-way propagation delay: 2CT is the data in flight over its round trip
    /// (25us = one link of the paper's setup; 50us = half its 100us RTT, i.e. 2CT = C x RTT).
    #[arg(long, value_name = "DURATION", default_value = "25us", value_parser = secs)]
    delay: Secs,
    /// L, the packet length (comma-separated list allowed).
    #[arg(long, value_name = "BYTES,...", value_delimiter = ',', default_value = "1500B,750B", value_parser = bytes)]
    packet: Vec<Bytes>,
}

#[derive(clap::Args, Debug)]
#[command(group(clap::ArgGroup::new("block").required(true).args(["block_packets", "sru"])))]
struct BookArgs {
    /// n, numbers of senders, comma-separated.
    #[arg(long, value_name = "N,...", value_delimiter = ',', required = true,
          value_parser = sender_count)]
    senders: Vec<u64>,
    /// p_c, loss-event probability of the cumulative flow: one value for every n, or one per n.
    #[arg(long, value_name = "P,...", value_delimiter = ',', required = true, value_parser = probability)]
    pc: Vec<f64>,
    /// p_r, loss probability of a composite flow: one value, or one per n.
    #[arg(long, value_name = "P,...", value_delimiter = ',', required = true, value_parser = probability)]
    pr: Vec<f64>,
    /// delta, mean number of ABTTs (timeouts at the start of a block) per block: one value, or one
    /// per n.
    #[arg(long, value_name = "X,...", value_delimiter = ',', default_value = "0", value_parser = non_negative)]
    delta: Vec<f64>,
    /// RTT, mean round-trip time: one value, or one per n.
    #[arg(long, value_name = "DURATION,...", value_delimiter = ',', required = true, value_parser = positive_secs)]
    rtt: Vec<Secs>,
    /// T0, mean duration of a single timeout: one value, or one per n.
    #[arg(long, value_name = "DURATION,...", value_delimiter = ',', default_value = "200ms", value_parser = secs)]
    t0: Vec<Secs>,
    /// L, the whole block (all n senders together) in packets: one value, or one per n.
    #[arg(long, value_name = "PACKETS,...", value_delimiter = ',', value_parser = positive)]
    block_packets: Vec<f64>,
    /// Per-server SRU instead of --block-packets: L = n x SRU / segment packets.
    #[arg(long, value_name = "BYTES", value_parser = bytes)]
    sru: Option<Bytes>,
    /// Segment (payload) size, for the Mbps columns and --sru.
    #[arg(long, value_name = "BYTES", default_value = "1KB", value_parser = bytes)]
    segment: Bytes,
    /// n* of the Split Model: up to this many senders IBTTs are whole-window losses.
    #[arg(long, value_name = "N", default_value_t = incastsim::models::DEFAULT_N_STAR)]
    n_star: u64,
}

/// A value parsed from a human unit, remembering how the user wrote it (for error messages).
#[derive(Clone, Debug)]
struct Human<T> {
    value: T,
    text: String,
}

impl<T> fmt::Display for Human<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// Seconds.
type Secs = Human<f64>;
/// Bytes.
type Bytes = Human<u64>;
/// Bits per second.
type Rate = Human<u64>;

fn secs(s: &str) -> Result<Secs, String> {
    parse_duration(s).map(|d| Human {
        value: d.as_secs_f64(),
        text: s.trim().to_string(),
    })
}

fn bytes(s: &str) -> Result<Bytes, String> {
    parse_bytes(s).map(|b| Human {
        value: b,
        text: s.trim().to_string(),
    })
}

fn rate(s: &str) -> Result<Rate, String> {
    parse_rate(s).map(|r| Human {
        value: r.0,
        text: s.trim().to_string(),
    })
}

fn probability(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(p) if p > 0.0 && p <= 1.0 => Ok(p),
        _ => Err(format!(
            "invalid probability {s:?}: expected a number in (0, 1], e.g. 0.01"
        )),
    }
}

fn positive_secs(s: &str) -> Result<Secs, String> {
    let d = secs(s)?;
    if d.value > 0.0 {
        Ok(d)
    } else {
        Err(format!("invalid duration {s:?}: must be greater than zero"))
    }
}

fn sender_count(s: &str) -> Result<u64, String> {
    match s.trim().parse::<u64>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err(format!(
            "invalid number of senders {s:?}: expected an integer >= 1"
        )),
    }
}

fn positive(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!(
            "invalid number {s:?}: expected a finite number > 0"
        )),
    }
}

fn non_negative(s: &str) -> Result<f64, String> {
    match s.trim().parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 => Ok(x),
        _ => Err(format!(
            "invalid number {s:?}: expected a finite number >= 0"
        )),
    }
}

pub fn model(args: ModelArgs) -> Result<()> {
    print!("{}", model_csv(args)?);
    Ok(())
}

/// The CSV table `incastsim model` prints (header and one row per parameter combination).
pub fn model_csv(args: ModelArgs) -> Result<String> {
    let rows = match args.command {
        ModelCommand::RtoMax(a) => rto_max(a),
        ModelCommand::Nmax(a) => nmax(a),
        ModelCommand::Book(a) => book(a),
    }?;
    let mut out = String::new();
    for r in rows {
        out.push_str(&r);
        out.push('\n');
    }
    Ok(out)
}

/// `incastsim model ARGS...` as a library call (the Python package's `incastsim.model`):
/// `argv` is what follows `model` on the command line, e.g. `["rto-max", "--delta", "4ms"]`.
/// Errors carry clap's message for bad arguments, or the model's.
pub fn model_from_args(argv: &[String]) -> Result<String> {
    use clap::Parser;
    #[derive(Parser)]
    #[command(name = "incastsim model")]
    struct ModelCli {
        #[command(flatten)]
        args: ModelArgs,
    }
    let cli = ModelCli::try_parse_from(
        std::iter::once("incastsim model".to_string()).chain(argv.iter().cloned()),
    )
    .map_err(|e| anyhow::anyhow!("{}", e.render().to_string().trim_end()))?;
    model_csv(cli.args)
}

fn rto_max(a: RtoMaxArgs) -> Result<Vec<String>> {
    if a.delta.value > 2.0 * a.rto_min.value {
        bail!(
            "invalid --delta {}: must be at most 2 x --rto-min ({} here), so that the RTO \
             interval [rto_min - delta/2, rto_min + delta/2] stays >= 0",
            a.delta,
            a.rto_min
        );
    }
    let context = || format!("--rto-min {} --delta {}", a.rto_min, a.delta);
    let mut header = "senders,e_max_rto_s,var_max_rto_s2,std_max_rto_s,var_bound_s2".to_string();
    if let Some(k) = &a.exceeds {
        header.push_str(&format!(",p_max_rto_greater_than_{}", k.text));
    }
    let mut rows = vec![header];
    for &n in &a.senders {
        let (r, d) = (a.rto_min.value, a.delta.value);
        let e = expected_max_rto(r, d, n).with_context(context)?;
        let v = var_max_rto(r, d, n).with_context(context)?;
        let bound = var_max_rto_bound(r, d, n).with_context(context)?;
        let mut row = vec![n.to_string(), num(e), num(v), num(v.sqrt()), num(bound)];
        if let Some(k) = &a.exceeds {
            let p = p_max_rto_greater(r, d, n, k.value)
                .with_context(|| format!("{} --exceeds {k}", context()))?;
            row.push(num(p));
        }
        rows.push(row.join(","));
    }
    Ok(rows)
}

fn nmax(a: NmaxArgs) -> Result<Vec<String>> {
    let mut rows = vec![
        "buffer_bytes,link_rate_bps,one_way_delay_s,packet_bytes,pipe_bytes,m_packets,bound,n_max"
            .to_string(),
    ];
    for b in &a.buffer {
        for l in &a.packet {
            let r = n_max_bound(
                b.value as f64,
                a.rate.value as f64,
                a.delay.value,
                l.value as f64,
            )
            .with_context(|| {
                format!(
                    "--buffer {b} --rate {} --delay {} --packet {l}",
                    a.rate, a.delay
                )
            })?;
            let row = [
                b.value.to_string(),
                a.rate.value.to_string(),
                num(a.delay.value),
                l.value.to_string(),
                num(r.pipe_bytes),
                num(r.m_packets),
                num(r.bound),
                r.n_max.to_string(),
            ];
            rows.push(row.join(","));
        }
    }
    Ok(rows)
}

/// The i-th value of a per-n list: a single value applies to every n.
fn per_n<'a, T>(flag: &str, values: &'a [T], senders: usize) -> Result<impl Fn(usize) -> &'a T> {
    if values.len() != 1 && values.len() != senders {
        bail!(
            "{flag} has {} values but --senders has {senders}: give one value (used for every N) \
             or one per sender count",
            values.len()
        );
    }
    Ok(move |i: usize| {
        if values.len() == 1 {
            &values[0]
        } else {
            &values[i]
        }
    })
}

fn book(a: BookArgs) -> Result<Vec<String>> {
    let count = a.senders.len();
    let pc = per_n("--pc", &a.pc, count)?;
    let pr = per_n("--pr", &a.pr, count)?;
    let delta = per_n("--delta", &a.delta, count)?;
    let rtt = per_n("--rtt", &a.rtt, count)?;
    let t0 = per_n("--t0", &a.t0, count)?;
    let block = if a.sru.is_none() {
        Some(per_n("--block-packets", &a.block_packets, count)?)
    } else {
        None
    };
    let segment_bytes = a.segment.value as f64;
    if segment_bytes <= 0.0 {
        bail!("invalid --segment {}: must be at least 1 byte", a.segment);
    }
    let mut rows = vec![
        "senders,p_c,p_r,delta_abtts_per_block,rtt_s,t0_s,block_packets,j,e_x_rounds,\
         e_w_f_packets,w_packets,q_ibtt_full,q_ibt_split,q_abtt,q_full,q_split,\
         td_only_pps,full_pps,split_pps,td_only_mbps,full_mbps,split_mbps"
            .to_string(),
    ];
    for (i, &n) in a.senders.iter().enumerate() {
        let block_packets = match (&block, &a.sru) {
            (Some(block), _) => *block(i),
            (None, Some(sru)) => block_packets_from_sru(n, sru.value as f64, segment_bytes)
                .with_context(|| format!("--sru {sru} --segment {}", a.segment))?,
            (None, None) => bail!("give --block-packets or --sru"),
        };
        let p = BookParams {
            n_senders: n,
            p_c: *pc(i),
            p_r: *pr(i),
            delta_abtts_per_block: *delta(i),
            rtt_s: rtt(i).value,
            t0_s: t0(i).value,
            block_packets,
            n_star: a.n_star,
        };
        let m = p.evaluate().with_context(|| {
            format!(
                "N = {n}: --pc {} --pr {} --delta {} --rtt {} --t0 {} (block {} packets)",
                p.p_c,
                p.p_r,
                p.delta_abtts_per_block,
                rtt(i),
                t0(i),
                block_packets
            )
        })?;
        let mbps = |pps| pps_to_mbps(pps, segment_bytes);
        let row = [
            n.to_string(),
            num(p.p_c),
            num(p.p_r),
            num(p.delta_abtts_per_block),
            num(p.rtt_s),
            num(p.t0_s),
            num(block_packets),
            num(m.j),
            num(m.e_x_rounds),
            num(m.e_w_f_packets),
            m.w_packets.to_string(),
            num(m.q_ibtt_full),
            num(m.q_ibt_split),
            num(m.q_abtt),
            num(m.q_full),
            num(m.q_split),
            num(m.td_only_pps),
            num(m.full_pps),
            num(m.split_pps),
            num(mbps(m.td_only_pps)),
            num(mbps(m.full_pps)),
            num(mbps(m.split_pps)),
        ];
        rows.push(row.join(","));
    }
    Ok(rows)
}

/// A CSV number: shortest round-trip decimal, in exponent form below 1e-4 (e.g. `4.2667e-7`).
fn num(x: f64) -> String {
    if x != 0.0 && x.abs() < 1e-4 {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}
