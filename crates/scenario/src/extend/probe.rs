//! The probe extension point: a measurement from a downstream crate, chosen by
//! `probes: [{name: <registered name>, <param>: ...}]`.

use super::*;

/// A measurement from outside incastsim, selected by name: `probes: [{name: <registered
/// name>, <param>: <value>, ...}]` (a list: several probes, each with its parameters).
///
/// Its probe ([`crate::probe::Probe`]) has no-op default hooks (packet enqueued, marked,
/// dropped with its reason, dequeued, delivered; ACK processed with the sender's
/// [`incastsim_tcp::CcState`]; RTO fired; transfer started and finished) and adds columns to
/// `runs.csv`/`flows.csv` or a CSV file of its own when the run ends. It observes only: every
/// hook gets shared references, so the run is the same with or without it; its randomness is
/// [`crate::probe::ProbeSetup::rng`]. One probe per run, built by [`ProbeExtension::new`].
/// A sweep writes its files' headers before any run, so it writes the columns
/// [`ProbeExtension::columns`] declares (and refuses a run whose probe adds one it did not).
pub trait ProbeExtension: 'static {
    /// Its parameters (everything beside `name` in its entry of `probes`).
    type Params: ExtensionParams;
    /// The probe of one run.
    type Probe: crate::probe::Probe + 'static;
    /// One line for `incastsim components`.
    const DESCRIPTION: &'static str;
    /// Checks the parameters (keys relative to the probe).
    fn check(_params: &Self::Params) -> Result<(), ConfigError> {
        Ok(())
    }
    /// The probe of the run `setup` describes.
    fn new(params: &Self::Params, setup: &crate::probe::ProbeSetup) -> Self::Probe;
    /// The columns its probe adds to `runs.csv` and `flows.csv` with `params`, in the order
    /// [`crate::probe::Probe::finish`] adds them, and the tables of its own it writes
    /// ([`crate::probe::ProbeColumnNames::table`]: file and columns). Single runs write
    /// whatever `finish` adds; a sweep fixes its files' headers from this before its first
    /// run (a table is one file of the sweep folder, `point` and `replicate` then its
    /// columns), so a column or table missing here fails the sweep's first run that adds it.
    /// Default: none.
    fn columns(params: &Self::Params) -> crate::probe::ProbeColumnNames {
        let _ = params;
        crate::probe::ProbeColumnNames::default()
    }
}

/// A probe ready to be built for runs: the extension's type with its parameters read once.
pub trait PreparedProbe: Send + Sync + Debug {
    /// The probe of one run.
    fn new_probe(&self, setup: &crate::probe::ProbeSetup) -> Box<dyn crate::probe::Probe>;
    /// The columns its probes add ([`ProbeExtension::columns`]).
    fn columns(&self) -> crate::probe::ProbeColumnNames;
}

struct ProbeWith<P: ProbeExtension> {
    name: &'static str,
    params: P::Params,
}

impl<P: ProbeExtension> Debug for ProbeWith<P> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {:?}", self.name, self.params)
    }
}

impl<P: ProbeExtension> PreparedProbe for ProbeWith<P> {
    fn new_probe(&self, setup: &crate::probe::ProbeSetup) -> Box<dyn crate::probe::Probe> {
        Box::new(P::new(&self.params, setup))
    }
    fn columns(&self) -> crate::probe::ProbeColumnNames {
        P::columns(&self.params)
    }
}

impl Extensions {
    /// Registers probe `P` as `name` (see [`ProbeExtension`]).
    pub fn probe<P: ProbeExtension>(mut self, name: &'static str) -> Extensions {
        self.refuse_taken(ExtensionPoint::Probe, name);
        fn prepare<P: ProbeExtension>(
            name: &'static str,
            key: &str,
            params: &serde_json::Map<String, serde_json::Value>,
        ) -> Result<Arc<dyn PreparedProbe>, ConfigError> {
            let params = read_params::<P::Params>(key, params)?;
            Ok(Arc::new(ProbeWith::<P> { name, params }))
        }
        self.probes.push(Registered {
            info: self.info(ExtensionPoint::Probe, name, P::DESCRIPTION),
            codec: Arc::new(Codec::<P::Params> {
                check: P::check,
                _params: PhantomData,
            }),
            prepare: Some(prepare::<P>),
        });
        self
    }

    /// Probe `choice` (found under `key`) ready to be built for runs.
    pub fn prepare_probe(
        &self,
        key: &str,
        choice: &ExtensionChoice,
    ) -> Result<Arc<dyn PreparedProbe>, ConfigError> {
        prepare(&self.probes, ExtensionPoint::Probe, key, choice)
    }

    /// The columns the components and probes of `cfg` add to `runs.csv` and `flows.csv`: first
    /// the controllers' and the scheme's own values (`CongestionControl::value_names`,
    /// `SenderPolicy::value_names`) in flows.csv, then each probe's columns, once, in the order
    /// the probes are listed, and their tables ([`ProbeExtension::columns`]); a table with a
    /// bad file name, or declared twice with other columns, is an error under `probes[I]`.
    pub fn probe_columns(
        &self,
        cfg: &crate::Config,
    ) -> Result<crate::probe::ProbeColumnNames, ConfigError> {
        // The controllers' and schemes' own values come first (`results/flows.rs`).
        let flow: Vec<String> = crate::plan::value_columns(cfg, self)?
            .into_iter()
            .map(String::from)
            .collect();
        // An RDMA rate controller's run-level columns (`results/rdma.rs`), when one runs.
        let rdma: &[&str] = if flow.iter().any(|c| c == "rdma_final_rate_gbps") {
            &crate::results::rdma::RDMA_RUN_COLUMNS
        } else {
            &[]
        };
        let traffic = self.prepare_traffic(cfg)?;
        let generated = traffic.iter().enumerate().flat_map(|(i, g)| {
            let names = g.as_ref().map_or(&[][..], |g| g.value_names());
            names.iter().map(move |n| format!("traffic[{i}].{n}"))
        });
        // The collectives' summary columns and tables (`results/collectives.rs`), when the
        // traffic has a collective job.
        let collectives = crate::results::collectives::has_collectives(cfg);
        let collective_columns: &[&str] = if collectives {
            &crate::results::collectives::COLLECTIVE_RUN_COLUMNS
        } else {
            &[]
        };
        let mut names = crate::probe::ProbeColumnNames {
            flow,
            // The reactive generators' own values: runs.csv, before the probes' columns.
            run: rdma
                .iter()
                .map(|c| c.to_string())
                .chain(generated)
                .chain(collective_columns.iter().map(|c| c.to_string()))
                .collect(),
            tables: if collectives {
                crate::results::collectives::declared_tables()
            } else {
                Vec::new()
            },
        };
        for (i, choice) in cfg.probes.iter().enumerate() {
            let key = format!("probes[{i}]");
            let columns = self.prepare_probe(&key, choice)?.columns();
            let refuse = |message: String| ConfigError::Key {
                key: key.clone(),
                message,
            };
            columns.check_tables().map_err(refuse)?;
            names.merge(&columns).map_err(refuse)?;
        }
        Ok(names)
    }
}
