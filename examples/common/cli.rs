//! What the tools share on their command lines: clap parsers for qtangent's named values and for
//! image sizes. Included by the tools (`#[path = "common/cli.rs"] mod cli;`).

#![allow(dead_code)] // each tool uses what it needs

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

/// An image size, `WIDTHxHEIGHT` (or `WIDTHXHEIGHT`), both sides whole numbers of at least 1.
pub fn parse_size(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("size {s:?} is not WIDTHxHEIGHT"))?;
    let parse = |v: &str| {
        v.trim()
            .parse::<u32>()
            .map_err(|e| format!("size {s:?}: {v:?} is not a whole number ({e})"))
    };
    let (w, h) = (parse(w)?, parse(h)?);
    if w == 0 || h == 0 {
        return Err(format!("size {s:?}: both sides must be at least 1"));
    }
    Ok((w, h))
}

/// Sizes `WIDTHxHEIGHT,WIDTHxHEIGHT,…` (each as [`parse_size`]).
pub fn parse_sizes(s: &str) -> Result<Vec<(u32, u32)>, String> {
    s.split(',').map(parse_size).collect()
}
