//! Unit tests of glTF URIs (`src/gltf/uri.rs`): base64 data URIs (written by the lab's
//! `gltf_json::data_uri`) and relative, percent-encoded and `file:` URIs resolved.

use std::path::{Path, PathBuf};

use super::{decode_data_uri, resolve, Resolved};
use crate::lab::gltf_json::data_uri;

/// RFC 4648 §10's vectors, with and without padding, round-tripped through a data URI.
#[test]
fn base64_round_trips_the_rfc_vectors() {
    for (plain, coded) in [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ] {
        let uri = data_uri("application/octet-stream", plain.as_bytes());
        assert_eq!(uri, format!("data:application/octet-stream;base64,{coded}"));
        assert_eq!(
            decode_data_uri(&uri).ok().as_deref(),
            Some(plain.as_bytes())
        );
        let bare = format!("data:x;base64,{}", coded.trim_end_matches('='));
        assert_eq!(
            decode_data_uri(&bare).ok().as_deref(),
            Some(plain.as_bytes())
        );
    }
    assert!(decode_data_uri("data:x,plain").is_err());
    assert!(decode_data_uri("data:x;base64,@@@@").is_err());
}

#[test]
fn uris_resolve_against_the_base() {
    let base = Path::new("/models");
    let file = |p: &str| Some(Resolved::File(PathBuf::from(p)));
    assert_eq!(resolve("a%20b.bin", base).ok(), file("/models/a b.bin"));
    assert_eq!(resolve("file:///dev/zero", base).ok(), file("/dev/zero"));
    assert_eq!(resolve("data:x;base64,AA", base).ok(), Some(Resolved::Data));
    assert!(resolve("https://example.com/a.bin", base).is_err());
    assert!(resolve("%FF.bin", base).is_err());
}
