//! The rate controller of a RoCE section's queue pairs (`tcp.transport.congestion_control`):
//! from the config's choice to a factory that builds one `incastsim_roce::Controller` per
//! queue pair (as `plan/tcp.rs`'s `ControllerFactory` does for TCP).

use crate::config::{
    AlphaUpdateConfig, CcPreset, ConfigError, DecreaseOrderConfig, HyperIncreaseConfig,
    RdmaCcConfig, TimelyUpdateConfig, TransportConfig,
};
use crate::extend::{Extensions, PreparedRdmaController, RdmaControllerContext};
use incastsim_roce::Controller;
use incastsim_roce::{
    AlphaUpdate, Dcqcn, DcqcnParams, DecreaseOrder, Hpcc, HpccParams, HyperIncrease, Timely,
    TimelyParams, TimelyUpdate,
};
use std::sync::Arc;

/// The class of CNPs when `cnp_dscp` is not set: 48, the DSCP ConnectX NICs give CNPs by
/// default (NVIDIA MLNX_OFED "DCQCN" parameters: `cnp_dscp` 48, `cnp_802p_prio` 6); with
/// fewer classes it lands in the highest (class = min(DSCP, classes − 1)).
pub const DEFAULT_CNP_DSCP: u8 = 48;

/// Builds each queue pair's rate controller.
#[derive(Clone, Debug, Default)]
pub enum RdmaControllerFactory {
    /// No controller: the initial rate throughout.
    #[default]
    Fixed,
    /// A built-in (DCQCN, HPCC, TIMELY): its config, whose parameters depend on the QP's line
    /// rate and base RTT (built per queue pair by `builtin_controller`).
    Builtin(RdmaCcConfig),
    /// A controller registered by a downstream crate.
    Extension(Arc<dyn PreparedRdmaController>),
}

impl RdmaControllerFactory {
    /// The factory of section `t` (`key`: its `tcp.` prefix, for errors).
    pub fn new(
        t: &TransportConfig,
        key: &str,
        extensions: &Extensions,
    ) -> Result<RdmaControllerFactory, ConfigError> {
        let TransportConfig::Roce(r) = t else {
            return Ok(RdmaControllerFactory::Fixed);
        };
        Ok(match &r.congestion_control {
            RdmaCcConfig::None => RdmaControllerFactory::Fixed,
            RdmaCcConfig::Extension(choice) => {
                RdmaControllerFactory::Extension(extensions.prepare_rdma_controller(
                    &format!("{key}transport.congestion_control"),
                    choice,
                )?)
            }
            builtin => {
                // Checked once with a representative queue pair: the checked values do not
                // depend on the line rate or the RTT.
                let probe = RdmaControllerContext::new(
                    0,
                    0,
                    incastsim_core::BitsPerSec::gbps(100),
                    incastsim_core::Duration::from_us(10),
                    1000,
                );
                check_builtin(
                    builtin,
                    &probe,
                    &format!("{key}transport.congestion_control"),
                )?;
                RdmaControllerFactory::Builtin(builtin.clone())
            }
        })
    }

    /// Whether the controllers need each flow's base RTT.
    pub fn needs_base_rtt(&self) -> bool {
        !matches!(self, RdmaControllerFactory::Fixed)
    }

    /// The controller of one queue pair.
    pub fn new_controller(&self, ctx: &RdmaControllerContext) -> Controller {
        match self {
            RdmaControllerFactory::Fixed => Controller::default(),
            RdmaControllerFactory::Builtin(c) => builtin_controller(c, ctx),
            RdmaControllerFactory::Extension(e) => e.new_controller(ctx),
        }
    }
}

/// The parameters of built-in `c` for the queue pair of `ctx`: its preset at the QP's line rate
/// (and, HPCC, base RTT), then every key the config sets. `None` for `none` or an extension.
fn builtin_params(c: &RdmaCcConfig, ctx: &RdmaControllerContext) -> Option<BuiltinParams> {
    Some(match c {
        RdmaCcConfig::Dcqcn {
            preset,
            g,
            initial_alpha,
            alpha_interval,
            alpha_update,
            rate_decrease_interval,
            decrease_order,
            rate_on_first_cnp,
            clamp_target_rate,
            increase_interval,
            byte_counter,
            fast_recovery_stages,
            rate_ai,
            rate_hai,
            hyper_increase,
            min_rate,
            ecn_echo_as_cnp,
            cnp_interval: _,
        } => {
            let mut p = match preset {
                CcPreset::Paper => DcqcnParams::paper(),
                CcPreset::HpccFork => DcqcnParams {
                    // The fork's CNP is a flag on the ACK (`ReceiveUdp` sets it when the data
                    // packet was marked; `ReceiveAck` calls `cnp_received_mlx`).
                    ecn_echo_as_cnp: true,
                    ..DcqcnParams::hpcc_fork_at(ctx.line_rate)
                },
            };
            set(&mut p.g, *g);
            set(&mut p.initial_alpha, *initial_alpha);
            set(&mut p.alpha_interval, alpha_interval.map(|d| d.0));
            set(
                &mut p.alpha_update,
                alpha_update.map(|a| match a {
                    AlphaUpdateConfig::OnCnp => AlphaUpdate::OnCnp,
                    AlphaUpdateConfig::Periodic => AlphaUpdate::Periodic,
                }),
            );
            set(
                &mut p.rate_decrease_interval,
                rate_decrease_interval.map(|d| d.0),
            );
            set(
                &mut p.decrease_order,
                decrease_order.map(|o| match o {
                    DecreaseOrderConfig::CutThenAlpha => DecreaseOrder::CutThenAlpha,
                    DecreaseOrderConfig::AlphaThenCut => DecreaseOrder::AlphaThenCut,
                }),
            );
            set(&mut p.rate_on_first_cnp, *rate_on_first_cnp);
            set(&mut p.clamp_target_rate, *clamp_target_rate);
            set(&mut p.increase_interval, increase_interval.map(|d| d.0));
            set(&mut p.byte_counter_bytes, byte_counter.map(|b| b.0));
            set(&mut p.fast_recovery_stages, *fast_recovery_stages);
            set(&mut p.rate_ai, rate_ai.map(|r| r.0));
            set(&mut p.rate_hai, rate_hai.map(|r| r.0));
            set(
                &mut p.hyper_increase,
                hyper_increase.map(|h| match h {
                    HyperIncreaseConfig::Scaled => HyperIncrease::Scaled,
                    HyperIncreaseConfig::Constant => HyperIncrease::Constant,
                }),
            );
            set(&mut p.min_rate, min_rate.map(|r| r.0));
            set(&mut p.ecn_echo_as_cnp, *ecn_echo_as_cnp);
            BuiltinParams::Dcqcn(p)
        }
        RdmaCcConfig::Hpcc {
            preset,
            eta,
            max_stage,
            w_ai,
            base_rtt,
            min_rate,
            fast_react,
        } => {
            let t = base_rtt.map_or(ctx.base_rtt, |d| d.0);
            let mut p = match preset {
                CcPreset::Paper => HpccParams::paper(ctx.line_rate, t),
                CcPreset::HpccFork => HpccParams::hpcc_fork(ctx.line_rate, t),
            };
            set(&mut p.eta, *eta);
            set(&mut p.max_stage, *max_stage);
            set(&mut p.w_ai_bytes, w_ai.map(|b| b.0 as f64));
            set(&mut p.min_rate, min_rate.map(|r| r.0));
            set(&mut p.fast_react, *fast_react);
            BuiltinParams::Hpcc(p)
        }
        RdmaCcConfig::Timely {
            preset,
            alpha,
            beta,
            delta,
            hai_factor,
            hai_after,
            t_low,
            t_high,
            min_rtt,
            update,
            update_bytes,
            min_rate,
        } => {
            let mut p = match preset {
                CcPreset::Paper => TimelyParams::paper(),
                CcPreset::HpccFork => TimelyParams::hpcc_fork(ctx.line_rate),
            };
            set(&mut p.alpha, *alpha);
            set(&mut p.beta, *beta);
            set(&mut p.delta, delta.map(|r| r.0));
            set(&mut p.hai_factor, *hai_factor);
            set(&mut p.hai_after, *hai_after);
            set(&mut p.t_low, t_low.map(|d| d.0));
            set(&mut p.t_high, t_high.map(|d| d.0));
            set(&mut p.min_rtt, min_rtt.map(|d| d.0));
            let bytes = match (update_bytes, p.update) {
                (Some(b), _) => b.0,
                (None, TimelyUpdate::EveryBytes(b)) => b,
                (None, _) => 16 * 1024,
            };
            set(
                &mut p.update,
                update.map(|u| match u {
                    TimelyUpdateConfig::EveryAck => TimelyUpdate::EveryAck,
                    TimelyUpdateConfig::EveryBytes => TimelyUpdate::EveryBytes(bytes),
                    TimelyUpdateConfig::OncePerRtt => TimelyUpdate::OncePerRtt,
                }),
            );
            if update.is_none() && update_bytes.is_some() {
                p.update = TimelyUpdate::EveryBytes(bytes);
            }
            set(&mut p.min_rate, min_rate.map(|r| r.0));
            BuiltinParams::Timely(p)
        }
        RdmaCcConfig::None | RdmaCcConfig::Extension(_) => return None,
    })
}

/// A key the config sets overrides the preset's value.
fn set<T>(field: &mut T, value: Option<T>) {
    if let Some(v) = value {
        *field = v;
    }
}

/// A built-in's parameters.
enum BuiltinParams {
    Dcqcn(DcqcnParams),
    Hpcc(HpccParams),
    Timely(TimelyParams),
}

/// Built-in `c`'s controller for the queue pair of `ctx`.
fn builtin_controller(c: &RdmaCcConfig, ctx: &RdmaControllerContext) -> Controller {
    match builtin_params(c, ctx) {
        Some(BuiltinParams::Dcqcn(p)) => Controller::Dcqcn(Dcqcn::new(p)),
        Some(BuiltinParams::Hpcc(p)) => Controller::Hpcc(Hpcc::new(p)),
        Some(BuiltinParams::Timely(p)) => Controller::Timely(Timely::new(p)),
        None => Controller::default(),
    }
}

/// Checks built-in `c`'s parameters as a queue pair of `ctx` would get them; an error names
/// the key under `key` (the controller's own checks name `dcqcn.g`, ...: the part after the
/// controller's name is the key).
fn check_builtin(
    c: &RdmaCcConfig,
    ctx: &RdmaControllerContext,
    key: &str,
) -> Result<(), ConfigError> {
    let checked = match builtin_params(c, ctx) {
        Some(BuiltinParams::Dcqcn(p)) => p.check(),
        Some(BuiltinParams::Hpcc(p)) => p.check(),
        Some(BuiltinParams::Timely(p)) => p.check(),
        None => Ok(()),
    };
    checked.map_err(|message| {
        // "dcqcn.g = 0: must be in (0, 1]" → key `….g`, the rest as the message.
        let (field, rest) = message
            .split_once(" = ")
            .map_or(("", message.as_str()), |(f, r)| (f, r));
        let field = field.split_once('.').map_or(field, |(_, f)| f);
        let field = match field {
            "byte_counter_bytes" => "byte_counter",
            "w_ai_bytes" => "w_ai",
            f => f,
        };
        let key = if field.is_empty() {
            key.to_string()
        } else {
            format!("{key}.{field}")
        };
        match rest.split_once(": ") {
            Some((value, allowed)) => crate::config::invalid(&key, value, allowed),
            None => ConfigError::Key {
                key,
                message: rest.to_string(),
            },
        }
    })
}
