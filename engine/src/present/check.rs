//! Build-time checks of a presenter against its schema (CLI.md "Presenter file": a bad path
//! anywhere is an error naming the key path): `required` names, redaction paths, embed keys
//! and template paths must be able to exist under the schema.
//!
//! Every check is linear in what it reads: property lookups in a node with many properties
//! go through a hash map built once per node, and a `*` segment is decided once per schema
//! node and path position.

use std::collections::HashMap;

use super::PresenterError;
use super::redact::Seg;
use super::schema::{Schema, Type};

/// Properties at or below which a node is scanned rather than indexed.
const SCAN: usize = 8;

/// Property lookups by name, indexed per schema node on first use.
#[derive(Default)]
pub(crate) struct Lookup<'s> {
    maps: HashMap<*const Schema, HashMap<&'s str, &'s Schema>>,
}

impl<'s> Lookup<'s> {
    /// The declared property `name` of `s` (the first, as [`Schema::property_schema`]).
    pub(crate) fn prop(&mut self, s: &'s Schema, name: &str) -> Option<&'s Schema> {
        let props = s.properties.as_ref()?;
        if props.len() <= SCAN {
            return props.iter().find(|(k, _)| k == name).map(|(_, c)| c);
        }
        self.maps
            .entry(std::ptr::from_ref(s))
            .or_insert_with(|| {
                let mut m = HashMap::with_capacity(props.len());
                for (k, c) in props {
                    m.entry(k.as_str()).or_insert(c);
                }
                m
            })
            .get(name)
            .copied()
    }
}

pub(crate) fn objectish(s: &Schema) -> bool {
    s.types.is_empty() || s.types.contains(&Type::Object)
}

fn arrayish(s: &Schema) -> bool {
    s.types.is_empty() || s.types.contains(&Type::Array)
}

/// True when a value can exist at `segs` below a value of `s`: every named segment is a
/// declared property, or the path leaves through an object without `properties`, a schema
/// that allows extras, or a schema without a type; `*` is any member, `[*]` any element.
pub(crate) fn redact_path_can_exist<'s>(
    s: &'s Schema,
    segs: &[Seg],
    lookup: &mut Lookup<'s>,
) -> bool {
    let mut memo = HashMap::new();
    can_exist(s, segs, lookup, &mut memo)
}

fn can_exist<'s>(
    s: &'s Schema,
    segs: &[Seg],
    lookup: &mut Lookup<'s>,
    memo: &mut HashMap<(*const Schema, usize), bool>,
) -> bool {
    let Some((first, rest)) = segs.split_first() else {
        return true;
    };
    match first {
        Seg::Key(k) => {
            if !objectish(s) {
                return false;
            }
            if s.properties.is_none() {
                return true;
            }
            match lookup.prop(s, k) {
                Some(c) => can_exist(c, rest, lookup, memo),
                None => s.additional,
            }
        }
        Seg::Star => {
            if !objectish(s) {
                return false;
            }
            let Some(props) = &s.properties else {
                return true;
            };
            if s.additional {
                return true;
            }
            let key = (std::ptr::from_ref(s), rest.len());
            if let Some(&known) = memo.get(&key) {
                return known;
            }
            let found = props.iter().any(|(_, c)| can_exist(c, rest, lookup, memo));
            memo.insert(key, found);
            found
        }
        Seg::Elems => {
            if !arrayish(s) {
                return false;
            }
            match &s.items {
                None => true,
                Some(items) => can_exist(items, rest, lookup, memo),
            }
        }
    }
}

/// `required` names a declared property wherever the node declares `properties` without
/// `additionalProperties: true` (else every call would fail), at every level.
pub(crate) fn required<'s>(
    s: &'s Schema,
    path: &str,
    lookup: &mut Lookup<'s>,
) -> Result<(), PresenterError> {
    // An explicit stack: schemas nest as deep as the file does.
    let mut stack: Vec<(&'s Schema, String)> = vec![(s, path.to_owned())];
    while let Some((s, path)) = stack.pop() {
        if s.properties.is_some() && !s.additional {
            for name in &s.required {
                if lookup.prop(s, name).is_none() {
                    return Err(PresenterError::new(
                        &format!("{path}.required"),
                        format!("'{name}' is not a declared property"),
                    ));
                }
            }
        }
        if let Some(items) = &s.items {
            stack.push((items, format!("{path}.items")));
        }
        for (k, c) in s.properties.iter().flatten().rev() {
            stack.push((c, format!("{path}.properties.{k}")));
        }
    }
    Ok(())
}
