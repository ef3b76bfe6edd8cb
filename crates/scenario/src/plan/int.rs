//! The in-band telemetry store's size (`engine/int.rs`), from the flows that carry INT.

/// The INT store's size when some queue pair's data packets carry an INT header: (PSN slots
/// per flow, records per packet). A slot is reused only after its ACK came back if the ring
/// holds twice the packets a QP can have in flight: its window, which HPCC keeps at most
/// one bandwidth-delay product (`line rate × base RTT`, its W_init), or the configured one.
/// Records: the most switches on a planned flow's path (at most `MAX_INT_HOPS`).
pub fn int_store_size(
    fabric: &super::fabric::Fabric,
    flows: &[super::PlannedFlow],
    profiles: &[super::tcp::TcpProfile],
    base_rtts: &[incastsim_core::Duration],
) -> Option<(u64, usize)> {
    let int_profile = |p: &super::tcp::TcpProfile| p.roce.filter(|r| r.int_telemetry);
    if !profiles.iter().any(|p| int_profile(p).is_some()) {
        return None;
    }
    let mut packets = 0u64;
    let mut hops = 1usize;
    for (i, f) in flows.iter().enumerate() {
        let Some(r) = int_profile(&profiles[f.profile as usize]) else {
            continue;
        };
        let rate = fabric.ports[fabric.host_port[f.src as usize] as usize]
            .serialization()
            .rate();
        let rtt = base_rtts.get(i).copied().unwrap_or_default();
        let bdp_bytes = (rate.as_f64() / 8.0 * rtt.as_secs_f64()).ceil() as u64;
        let window = bdp_bytes.max(r.window_bytes.unwrap_or(0));
        packets = packets.max(window.div_ceil(u64::from(r.mtu.max(1))));
        hops = hops.max(fabric.path(f.src, f.dst).len().saturating_sub(1));
    }
    Some((2 * packets + 64, hops.min(incastsim_core::MAX_INT_HOPS)))
}
