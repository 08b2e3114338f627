//! The row fast path: an object schema of `properties` compiled once per plan into a field
//! index table. The general writer (`present::writer`) writes rows with it and the row view
//! (`present::view`) validates rows with it.

use super::EmbedPlan;
use super::redact::RNode;
use super::schema::Schema;
use crate::doc::key_eq;

/// The compiled row writer (field index table) for an object schema with `properties`, without
/// `additionalProperties` or embeds. One pass over the row's members finds the declared ones
/// (in-order guess first, then a scan) and checks their types by a bit mask and `required` by
/// presence; then the row is written in schema order straight from the tape: leaf properties as
/// raw node copies, wholesale-redacted ones as the censor, and the others (nested `properties`,
/// `items`, `enum`, redaction below them) through the general writer. A row that fails a check
/// goes to the general writer before anything is written, which produces the exact messages.
pub(crate) struct FastRow {
    pub(crate) keys: Vec<Box<[u8]>>,
    pub(crate) masks: Vec<u8>,
    pub(crate) redacted: Vec<bool>,
    /// Properties written by the general writer (nested schema or redaction below them).
    pub(crate) complex: Vec<bool>,
    /// Per property: its index in `required` order, checked for presence.
    pub(crate) required: Vec<usize>,
    /// Per property: the `enum` the row view checks (a leaf property, unredacted).
    pub(crate) enums: Vec<Option<Vec<super::schema::EnumValue>>>,
    /// Every property is a leaf the row view checks (its type, and its `enum` when it has
    /// one): a presentation can be a row view (`present::view`).
    pub(crate) flat: bool,
    /// Key → index, for wide schemas (a scan per out-of-order key was quadratic per row).
    index: Option<std::collections::HashMap<Box<[u8]>, usize>>,
}

impl FastRow {
    pub(crate) fn compile(
        schema: Option<&Schema>,
        red: &RNode,
        embeds: &[EmbedPlan],
        censor: &str,
    ) -> Option<FastRow> {
        let s = schema?;
        let props = s.properties.as_ref()?;
        if s.additional || !embeds.is_empty() || red.here || red.elems.is_some() {
            return None;
        }
        if !s.types.is_empty() && s.types != [super::schema::Type::Object] {
            return None;
        }
        let mut f = FastRow {
            keys: Vec::with_capacity(props.len()),
            masks: Vec::with_capacity(props.len()),
            redacted: Vec::with_capacity(props.len()),
            complex: Vec::with_capacity(props.len()),
            enums: Vec::with_capacity(props.len()),
            required: Vec::new(),
            flat: false,
            index: None,
        };
        for (k, ps) in props {
            let r = red.member(k.as_bytes());
            // A redacted property with checks below its type (enum, nested schema) is
            // validated by the general writer like any other: redaction never skips a check.
            let checked = ps.properties.is_some() || ps.items.is_some() || ps.enum_values.is_some();
            // A parent's path with the parent's censor, and a censor made per value by a
            // function, are written by the general writer.
            let foreign = r.is_some_and(|r| {
                r.here && (r.censor_or(censor) != censor || r.censor_call().is_some())
            });
            let redacted = r.is_some_and(|r| r.here) && !checked && !foreign;
            let complex = !redacted && (checked || r.is_some());
            f.keys.push(k.as_bytes().into());
            f.masks.push(ps.mask());
            f.redacted.push(redacted);
            f.complex.push(complex);
            // An `enum` on a leaf is complex for the writer, a value check for the view.
            let leaf_enum = ps.properties.is_none() && ps.items.is_none() && r.is_none();
            f.enums.push(ps.enum_values.clone().filter(|_| leaf_enum));
        }
        // By name through a map: a scan per name was quadratic in wide schemas.
        let at: std::collections::HashMap<&str, usize> = props
            .iter()
            .enumerate()
            .rev()
            .map(|(i, (k, _))| (k.as_str(), i))
            .collect();
        for name in &s.required {
            f.required.push(*at.get(name.as_str())?);
        }
        f.flat = f
            .complex
            .iter()
            .zip(&f.enums)
            .all(|(&c, e)| !c || e.is_some());
        if f.keys.len() > 16 {
            let mut m = std::collections::HashMap::with_capacity(f.keys.len());
            for (i, k) in f.keys.iter().enumerate() {
                m.entry(k.clone()).or_insert(i);
            }
            f.index = Some(m);
        }
        Some(f)
    }

    /// The index of declared property `key` (when the in-order guess missed).
    #[inline]
    pub(crate) fn find(&self, key: &[u8]) -> Option<usize> {
        match &self.index {
            Some(m) => m.get(key).copied(),
            None => self.keys.iter().position(|k| key_eq(k, key)),
        }
    }
}
