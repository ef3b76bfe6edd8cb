//! Serde defaults shared by several sections (a leaf module: every schema file may use it).

use crate::units::Dur;
use incastsim_core::Duration;

pub(crate) fn default_one() -> u32 {
    1
}
pub(crate) fn default_true() -> bool {
    true
}
pub(crate) fn default_zero_dur() -> Dur {
    Dur(Duration::ZERO)
}
