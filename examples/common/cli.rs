//! What the tools share on their command lines: clap parsers for qtangent's named values and for
//! image sizes. Included by the tools (`#[path = "common/cli.rs"] mod cli;`).

#![allow(dead_code)] // each tool uses what it needs

use std::path::{Path, PathBuf};
use std::str::FromStr;

use clap::builder::{PossibleValuesParser, TypedValueParser};

/// A clap parser for a named enum: the names listed (clap's help and messages name them all),
/// parsed by the type's `FromStr`. For the types of `qtangent::names::named!`:
/// `names::<Format>(Format::ALL.map(Format::name))`.
pub fn names<T>(names: impl IntoIterator<Item = &'static str>) -> impl TypedValueParser<Value = T>
where
    T: FromStr + Clone + Send + Sync + 'static,
    T::Err: std::fmt::Display,
{
    PossibleValuesParser::new(names)
        .try_map(|name: String| name.parse::<T>().map_err(|e| e.to_string()))
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
