//! Named enums: one canonical name per value — the name the tools take, the files record and the
//! tables print — and aliases accepted only when parsing.
//!
//! [`named!`](crate::names::named) gives an enum `ALL`, `name()`, `Display` and `FromStr` from
//! one list, so the names cannot drift between them. Parse errors are [`ParseNameError`].

/// A name that [`std::str::FromStr`] does not know, for every named enum of the crate
/// ([`crate::Format`], the map formats, the skinning and blend methods, …). Its message names what
/// was parsed, the name, and the valid names: `unknown format 'f16' (valid: f32x4, f16x4, …)`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseNameError {
    what: &'static str,
    name: String,
    valid: Vec<&'static str>,
}

impl ParseNameError {
    /// The error for `name`, which is not one of `valid` names of a `what` (`format`, …).
    #[must_use]
    pub(crate) fn new(what: &'static str, name: &str, valid: Vec<&'static str>) -> Self {
        Self {
            what,
            name: name.to_string(),
            valid,
        }
    }
}

// Written by hand, not derived with thiserror: the core builds on glam, half and bytemuck alone.
impl std::fmt::Display for ParseNameError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (what, name) = (self.what, &self.name);
        write!(
            f,
            "unknown {what} '{name}' (valid: {})",
            self.valid.join(", ")
        )
    }
}

impl std::error::Error for ParseNameError {}

/// The value whose names (canonical first, then aliases) include `s`, ASCII case-insensitive.
#[cfg(feature = "pipeline")]
pub(crate) fn find<T: Copy>(s: &str, names: &[(T, &[&str])]) -> Option<T> {
    names
        .iter()
        .find(|(_, n)| n.iter().any(|n| n.eq_ignore_ascii_case(s)))
        .map(|&(v, _)| v)
}

/// Implements `ALL`, `name()`, `Display` and `FromStr` for a fieldless enum from one list of
/// `Variant => "name"` (`| "alias"` …) pairs; `what` names the kind of thing in parse errors.
///
/// ```text
/// named!(MapSpace, "map kind", { Object => "object", Tangent => "tangent" });
/// ```
#[cfg_attr(not(feature = "pipeline"), allow(unused_macros))]
macro_rules! named {
    ($ty:ident, $what:literal, { $($variant:ident => $name:literal $(| $alias:literal)*),+ $(,)? }) => {
        #[allow(unreachable_pub)]
        impl $ty {
            /// Every value, in the order the tools list them.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// The canonical name: what the tools take and the files and tables say.
            #[must_use]
            pub const fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name),+
                }
            }
        }

        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.pad(self.name())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::names::ParseNameError;

            /// The value with this canonical name or one of its aliases (ASCII
            /// case-insensitive).
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                const NAMES: &[($ty, &[&str])] = &[$(($ty::$variant, &[$name $(, $alias)*])),+];
                $crate::names::find(s, NAMES).ok_or_else(|| {
                    $crate::names::ParseNameError::new($what, s, Self::ALL.map(Self::name).to_vec())
                })
            }
        }
    };
}

#[cfg(feature = "pipeline")]
pub(crate) use named;
