//! What the tools share on their command lines: clap parsers for qtangent's named values and for
//! image sizes. Included by the command (`cli/`), the examples and the lab
//! (`#[path = "<relative path>/examples/common/cli.rs"] mod cli;`).

#![allow(dead_code)] // each tool uses what it needs

use std::ffi::OsStr;
use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;

/// A clap parser for a named enum (the types of `qtangent::names::named!`): parsed by the type's
/// `FromStr`, so aliases and any ASCII case are accepted and a bad name is the type's own error
/// (`unknown format 'f16' (valid: …)`); `names` (the canonical ones) are listed in `--help`.
/// `names::<Format>(Format::ALL.map(Format::name))`.
pub fn names<T>(names: impl IntoIterator<Item = &'static str>) -> Names<T> {
    Names {
        names: names.into_iter().collect(),
        value: std::marker::PhantomData,
    }
}

/// See [`names`].
pub struct Names<T> {
    names: Vec<&'static str>,
    value: std::marker::PhantomData<fn() -> T>,
}

impl<T> Clone for Names<T> {
    fn clone(&self) -> Self {
        Self {
            names: self.names.clone(),
            value: std::marker::PhantomData,
        }
    }
}

impl<T> TypedValueParser for Names<T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    type Value = T;

    fn parse_ref(
        &self,
        cmd: &clap::Command,
        arg: Option<&clap::Arg>,
        value: &OsStr,
    ) -> Result<T, clap::Error> {
        let text = value.to_string_lossy();
        text.parse::<T>().map_err(|e| {
            let arg = arg.map_or_else(|| "…".to_string(), ToString::to_string);
            clap::Error::raw(
                ErrorKind::InvalidValue,
                format!("invalid value '{text}' for '{arg}': {e}\n"),
            )
            .with_cmd(cmd)
        })
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        Some(Box::new(self.names.iter().map(|&n| PossibleValue::new(n))))
    }
}

/// An image size, `WIDTHxHEIGHT` (or `WIDTHXHEIGHT`), both sides positive whole numbers.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("size {s:?} is not WIDTHxHEIGHT"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .ok()
            .filter(|&n| n > 0)
            .ok_or_else(|| {
                format!("size {s:?}: {v:?} is not a positive whole number (each side at least 1)")
            })
    };
    Ok((parse(w)?, parse(h)?))
}

/// Sizes `WIDTHxHEIGHT,WIDTHxHEIGHT,…` (each as [`parse_size`]).
pub fn parse_sizes(s: &str) -> Result<Vec<(u32, u32)>, String> {
    s.split(',').map(parse_size).collect()
}

/// The real assets (the glTF sample models, the OBJ files): `$QTANGENT_ASSETS`, else
/// `../shared/assets` beside the crate.
pub fn assets_dir() -> PathBuf {
    std::env::var_os("QTANGENT_ASSETS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets"),
        PathBuf::from,
    )
}
