//! Which containment layers this kernel offers, found once per process: the Landlock ABI, seccomp
//! filters, and user namespaces (tried for real by a child that creates them). The switch
//! `LACUNA_SANDBOX_DISABLE=landlock,seccomp,namespaces` turns layers off, for the tests of the
//! degraded mode.

use std::fmt;
use std::sync::OnceLock;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Layer {
    Landlock,
    Seccomp,
    Namespaces,
}

/// The layers that hold for a confined process.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Layers {
    /// The kernel's Landlock ABI (0: none, or disabled).
    pub landlock_abi: i32,
    pub seccomp: bool,
    pub namespaces: bool,
}

impl Layers {
    /// The layers of this kernel, less those disabled by `LACUNA_SANDBOX_DISABLE`.
    pub fn current() -> Layers {
        static KERNEL: OnceLock<Layers> = OnceLock::new();
        let kernel = *KERNEL.get_or_init(|| Layers {
            landlock_abi: super::spawn::landlock_abi(),
            seccomp: super::spawn::seccomp_available(),
            namespaces: super::spawn::namespaces_available(),
        });
        kernel.without(&std::env::var("LACUNA_SANDBOX_DISABLE").unwrap_or_default())
    }

    /// These layers less those named in `disabled` (`landlock,seccomp,namespaces` or `all`).
    pub fn without(mut self, disabled: &str) -> Layers {
        for name in disabled.split(',').map(str::trim) {
            match name {
                "landlock" => self.landlock_abi = 0,
                "seccomp" => self.seccomp = false,
                "namespaces" => self.namespaces = false,
                "all" => self = Layers::default(),
                _ => {}
            }
        }
        self
    }

    pub fn has(&self, layer: Layer) -> bool {
        match layer {
            Layer::Landlock => self.landlock_abi > 0,
            Layer::Seccomp => self.seccomp,
            Layer::Namespaces => self.namespaces,
        }
    }

    /// Whether every layer this kernel could offer holds.
    pub fn complete(&self) -> bool {
        self.landlock_abi >= 6 && self.seccomp && self.namespaces
    }

    /// The layers that do not hold, for messages.
    pub fn missing(&self) -> String {
        let mut missing = vec![];
        if self.landlock_abi == 0 {
            missing.push("no Landlock");
        } else if self.landlock_abi < 4 {
            missing.push("Landlock without network rules (ABI < 4)");
        } else if self.landlock_abi < 6 {
            missing.push("Landlock without signal scoping (ABI < 6)");
        }
        if !self.seccomp {
            missing.push("no seccomp");
        }
        if !self.namespaces {
            missing.push("no user namespaces");
        }
        if missing.is_empty() {
            "nothing missing".into()
        } else {
            missing.join(", ")
        }
    }
}

impl fmt::Display for Layers {
    /// `Landlock ABI 7 (files, TCP, signals), seccomp, namespaces (user, PID, network, mount)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts = vec![];
        match self.landlock_abi {
            0 => {}
            abi => {
                let mut what = vec!["files"];
                if abi >= 4 {
                    what.push("TCP");
                }
                if abi >= 6 {
                    what.push("signals");
                }
                parts.push(format!("Landlock ABI {abi} ({})", what.join(", ")));
            }
        }
        if self.seccomp {
            parts.push("seccomp".into());
        }
        if self.namespaces {
            parts.push("namespaces (user, PID, network, mount, IPC)".into());
        }
        if parts.is_empty() {
            write!(f, "none: only the in-process hook")
        } else {
            write!(f, "{}", parts.join(", "))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_switch_turns_layers_off() {
        let all = Layers {
            landlock_abi: 7,
            seccomp: true,
            namespaces: true,
        };
        assert!(all.complete());
        assert_eq!(
            all.to_string(),
            "Landlock ABI 7 (files, TCP, signals), seccomp, namespaces (user, PID, network, mount, IPC)"
        );
        let less = all.without("seccomp, namespaces");
        assert_eq!(less.missing(), "no seccomp, no user namespaces");
        assert_eq!(
            all.without("all").to_string(),
            "none: only the in-process hook"
        );
    }
}
