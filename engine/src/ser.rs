//! serde input: any `serde::Serialize` value becomes a [`Doc`], built directly on the tape
//! (no `serde_json::Value` in between).
//!
//! [`to_doc`] maps the serde data model the way `serde_json` does, so that writing the
//! document as compact JSON gives what `serde_json::to_string` would give for the same
//! value, except for float formatting (ECMAScript `String(x)`: `3.0` prints `3`) and the
//! JSON writers' documented deviations (see [`crate::json::write_compact`]).
//!
//! | serde                                   | JSON in the document                          |
//! |-----------------------------------------|-----------------------------------------------|
//! | `bool`                                  | `true` / `false`                              |
//! | `i8`…`i128`, `u8`…`u128`                | integer, every digit kept (`u128::MAX` exact) |
//! | `f32`, `f64` finite                     | number, printed as ECMAScript `String(x)`     |
//! | `f32`, `f64` NaN or ±infinity           | `null` (as `JSON.stringify`)                  |
//! | `char`, `str`                           | string                                        |
//! | bytes                                   | array of integers `0..=255`                   |
//! | `None`, `()`, unit struct               | `null`                                        |
//! | `Some(x)`, newtype struct `S(x)`        | `x`                                           |
//! | unit variant `E::V`                     | `"V"`                                         |
//! | newtype variant `E::V(x)`               | `{"V": x}`                                    |
//! | tuple variant `E::V(a, b)`              | `{"V": [a, b]}`                               |
//! | struct variant `E::V { a }`             | `{"V": {"a": a}}`                             |
//! | seq, tuple, tuple struct                | array                                         |
//! | map, struct                             | object (skipped fields omitted)               |
//!
//! * An `f32` is stored as the f64 nearest to its shortest decimal form, so `0.1f32` prints
//!   `0.1` (as `serde_json` prints it), not `0.10000000149011612`.
//! * Map keys: strings and chars as is; integers (all widths) and bools as their decimal or
//!   `true`/`false` text; `Some(k)`, newtype structs and unit variants as their content, as
//!   `serde_json` does. Any other key (floats, `None`, unit, sequences, maps, …) is an error
//!   of category [`Category::Encode`].
//! * Duplicate keys (a custom `Serialize` can emit them) are merged as `JSON.parse` does: the
//!   last value wins, at the first key's position.
//! * Nesting: arrays and objects, the `{"V": …}` wrapper of a variant included, may nest at
//!   most [`DEFAULT_MAX_DEPTH`] levels (configurable with [`to_doc_with_depth`]); deeper input
//!   is an error of category [`Category::Depth`] instead of a stack overflow.
//! * `serde_json::Value` (and `serde_json::Number`) serialize as the JSON they hold, also when
//!   serde_json's `arbitrary_precision` feature is on: then a number arrives as its lexeme,
//!   integers keep every digit, and a lexeme that overflows f64 (`1e400`) is an error of
//!   category [`Category::Number`]. `serde_json::value::RawValue` is not supported (an
//!   error of category [`Category::Encode`]).
//! * Strings and keys are scanned as they are pushed, so [`Doc::has_reserved_tag`] reports a
//!   reserved tag sequence anywhere in the value.
//! * Errors from a `Serialize` implementation (`serde::ser::Error::custom`) have category
//!   [`Category::Encode`] and the implementation's message.
//!
//! ```
//! use serde::Serialize;
//!
//! #[derive(Serialize)]
//! enum Status { Paid, Late { days: u32 } }
//!
//! #[derive(Serialize)]
//! struct Invoice { id: u128, total: f64, status: Vec<Status>, note: Option<String> }
//!
//! let doc = toolwire::ser::to_doc(&Invoice {
//!     id: u128::MAX,
//!     total: 3.0,
//!     status: vec![Status::Paid, Status::Late { days: 3 }],
//!     note: None,
//! })
//! .unwrap();
//! assert_eq!(
//!     toolwire::json::to_string_compact(doc.root()),
//!     r#"{"id":340282366920938463463374607431768211455,"total":3,"status":["Paid",{"Late":{"days":3}}],"note":null}"#
//! );
//! ```

use serde::ser::{
    Impossible, Serialize, SerializeMap, SerializeSeq, SerializeStruct, SerializeStructVariant,
    SerializeTuple, SerializeTupleStruct, SerializeTupleVariant, Serializer,
};

use crate::doc::{Doc, DocBuilder, Mark};
use crate::error::{Category, Error, Result};

/// How deep [`to_doc`] lets arrays and objects nest.
pub const DEFAULT_MAX_DEPTH: usize = 128;

/// The struct name and field `serde_json::Number` serializes through when serde_json's
/// `arbitrary_precision` feature is on (the lexeme is the field's string value).
const SERDE_JSON_NUMBER: &str = "$serde_json::private::Number";
/// The same for `serde_json::value::RawValue`.
const SERDE_JSON_RAW: &str = "$serde_json::private::RawValue";

/// Builds a [`Doc`] from any `Serialize` value (mapping in the module docs), nesting at most
/// [`DEFAULT_MAX_DEPTH`] levels.
///
/// # Errors
///
/// [`Category::Depth`] past the nesting limit; [`Category::Encode`] for an unsupported map
/// key or an error raised by the value's `Serialize` implementation; [`Category::Number`] for
/// a `serde_json` number lexeme that overflows f64.
pub fn to_doc<T: Serialize + ?Sized>(value: &T) -> Result<Doc<'static>> {
    to_doc_with_depth(value, DEFAULT_MAX_DEPTH)
}

/// [`to_doc`] with a nesting limit of `max_depth` levels of arrays and objects (0 allows
/// only scalars).
///
/// # Errors
///
/// As [`to_doc`].
pub fn to_doc_with_depth<T: Serialize + ?Sized>(
    value: &T,
    max_depth: usize,
) -> Result<Doc<'static>> {
    let mut ser = DocSerializer {
        b: DocBuilder::new(b""),
        depth: 0,
        max_depth,
        scratch: Vec::new(),
    };
    value.serialize(&mut ser)?;
    Ok(ser.b.finish())
}

impl serde::ser::Error for Error {
    #[cold]
    fn custom<T: std::fmt::Display>(msg: T) -> Self {
        Error::new(Category::Encode, msg.to_string())
    }
}

/// The serializer: a builder, the current depth and a scratch buffer for map keys.
struct DocSerializer {
    b: DocBuilder<'static>,
    depth: usize,
    max_depth: usize,
    scratch: Vec<u8>,
}

impl DocSerializer {
    /// Enters one level of nesting.
    #[inline]
    fn enter(&mut self) -> Result<()> {
        if self.depth >= self.max_depth {
            return Err(too_deep(self.max_depth));
        }
        self.depth += 1;
        Ok(())
    }

    #[inline]
    fn leave(&mut self) {
        self.depth -= 1;
    }

    /// Opens `{"variant": ` (one level).
    fn begin_variant(&mut self, variant: &str) -> Result<Mark> {
        self.enter()?;
        let m = self.b.begin_object();
        self.b.string(variant.as_bytes());
        Ok(m)
    }

    fn end_variant(&mut self, mark: Mark) {
        self.b.end_object(mark, 1);
        self.leave();
    }

    fn begin_seq(&mut self, variant: Option<&str>) -> Result<Seq<'_>> {
        let outer = variant.map(|v| self.begin_variant(v)).transpose()?;
        self.enter()?;
        let mark = self.b.begin_array();
        Ok(Seq {
            ser: self,
            mark,
            len: 0,
            outer,
        })
    }

    fn begin_map(&mut self, variant: Option<&str>) -> Result<Map<'_>> {
        let outer = variant.map(|v| self.begin_variant(v)).transpose()?;
        self.enter()?;
        let mark = self.b.begin_object();
        Ok(Map {
            ser: self,
            mark: Some(mark),
            len: 0,
            outer,
        })
    }

    /// Pushes the number whose lexeme `serde_json::Number` gave (`arbitrary_precision`).
    fn number_lexeme(&mut self) -> Result<()> {
        let lexeme = std::mem::take(&mut self.scratch);
        let result = if crate::num::is_int_lexeme(&lexeme) {
            self.b.int_lexeme(&lexeme);
            Ok(())
        } else {
            match std::str::from_utf8(&lexeme)
                .ok()
                .and_then(|s| s.parse::<f64>().ok())
            {
                Some(x) if x.is_finite() => {
                    self.b.float(x);
                    Ok(())
                }
                _ => Err(Error::new(
                    Category::Number,
                    format!(
                        "number {} cannot be represented",
                        String::from_utf8_lossy(&lexeme)
                    ),
                )),
            }
        };
        self.scratch = lexeme;
        result
    }
}

#[cold]
fn too_deep(max: usize) -> Error {
    Error::new(
        Category::Depth,
        format!("value nested deeper than {max} levels"),
    )
}

#[cold]
fn bad_key() -> Error {
    Error::new(
        Category::Encode,
        "map key must be a string, integer, char or bool",
    )
}

/// The shortest decimal form of an `f32`, read back as the nearest f64.
fn f32_to_f64(x: f32) -> f64 {
    let mut buf = ryu_js::Buffer::new();
    // ryu-js prints finite floats in ECMAScript syntax, which `f64::from_str` reads.
    buf.format_finite(x).parse().unwrap_or(f64::from(x))
}

impl<'a> Serializer for &'a mut DocSerializer {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Seq<'a>;
    type SerializeTuple = Seq<'a>;
    type SerializeTupleStruct = Seq<'a>;
    type SerializeTupleVariant = Seq<'a>;
    type SerializeMap = Map<'a>;
    type SerializeStruct = Map<'a>;
    type SerializeStructVariant = Map<'a>;

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.b.bool(v);
        Ok(())
    }

    #[inline]
    fn serialize_i8(self, v: i8) -> Result<()> {
        self.serialize_i64(i64::from(v))
    }

    #[inline]
    fn serialize_i16(self, v: i16) -> Result<()> {
        self.serialize_i64(i64::from(v))
    }

    #[inline]
    fn serialize_i32(self, v: i32) -> Result<()> {
        self.serialize_i64(i64::from(v))
    }

    #[inline]
    fn serialize_i64(self, v: i64) -> Result<()> {
        self.b.i64(v);
        Ok(())
    }

    #[inline]
    fn serialize_i128(self, v: i128) -> Result<()> {
        let mut buf = itoa::Buffer::new();
        self.b.int_lexeme(buf.format(v).as_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_u8(self, v: u8) -> Result<()> {
        self.serialize_u64(u64::from(v))
    }

    #[inline]
    fn serialize_u16(self, v: u16) -> Result<()> {
        self.serialize_u64(u64::from(v))
    }

    #[inline]
    fn serialize_u32(self, v: u32) -> Result<()> {
        self.serialize_u64(u64::from(v))
    }

    #[inline]
    fn serialize_u64(self, v: u64) -> Result<()> {
        self.b.u64(v);
        Ok(())
    }

    #[inline]
    fn serialize_u128(self, v: u128) -> Result<()> {
        let mut buf = itoa::Buffer::new();
        self.b.int_lexeme(buf.format(v).as_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_f32(self, v: f32) -> Result<()> {
        if v.is_finite() {
            self.b.float(f32_to_f64(v));
        } else {
            self.b.null();
        }
        Ok(())
    }

    #[inline]
    fn serialize_f64(self, v: f64) -> Result<()> {
        if v.is_finite() {
            self.b.float(v);
        } else {
            self.b.null();
        }
        Ok(())
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        self.b.string(v.encode_utf8(&mut buf).as_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.b.string(v.as_bytes());
        Ok(())
    }

    fn serialize_bytes(self, v: &[u8]) -> Result<()> {
        self.enter()?;
        let m = self.b.begin_array();
        for &x in v {
            self.b.u64(u64::from(x));
        }
        self.b.end_array(m, v.len());
        self.leave();
        Ok(())
    }

    #[inline]
    fn serialize_none(self) -> Result<()> {
        self.b.null();
        Ok(())
    }

    #[inline]
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    #[inline]
    fn serialize_unit(self) -> Result<()> {
        self.b.null();
        Ok(())
    }

    #[inline]
    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        self.b.null();
        Ok(())
    }

    #[inline]
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.b.string(variant.as_bytes());
        Ok(())
    }

    #[inline]
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<()> {
        let m = self.begin_variant(variant)?;
        value.serialize(&mut *self)?;
        self.end_variant(m);
        Ok(())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Seq<'a>> {
        self.begin_seq(None)
    }

    fn serialize_tuple(self, _len: usize) -> Result<Seq<'a>> {
        self.begin_seq(None)
    }

    fn serialize_tuple_struct(self, _name: &'static str, _len: usize) -> Result<Seq<'a>> {
        self.begin_seq(None)
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Seq<'a>> {
        self.begin_seq(Some(variant))
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'a>> {
        self.begin_map(None)
    }

    fn serialize_struct(self, name: &'static str, _len: usize) -> Result<Map<'a>> {
        if name == SERDE_JSON_NUMBER {
            // Not a container: the one field's string is the number's lexeme.
            return Ok(Map {
                ser: self,
                mark: None,
                len: 0,
                outer: None,
            });
        }
        if name == SERDE_JSON_RAW {
            return Err(Error::new(
                Category::Encode,
                "serde_json::value::RawValue is not supported",
            ));
        }
        self.begin_map(None)
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        _len: usize,
    ) -> Result<Map<'a>> {
        self.begin_map(Some(variant))
    }
}

/// An open array (with the object of its variant, if any).
struct Seq<'a> {
    ser: &'a mut DocSerializer,
    mark: Mark,
    len: usize,
    outer: Option<Mark>,
}

impl Seq<'_> {
    #[inline]
    fn element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)?;
        self.len += 1;
        Ok(())
    }

    #[inline]
    fn finish(self) -> Result<()> {
        self.ser.b.end_array(self.mark, self.len);
        self.ser.leave();
        if let Some(outer) = self.outer {
            self.ser.end_variant(outer);
        }
        Ok(())
    }
}

impl SerializeSeq for Seq<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeTuple for Seq<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_element<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeTupleStruct for Seq<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeTupleVariant for Seq<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        self.element(value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// An open object (with the object of its variant, if any), or (`mark: None`) the one-field
/// struct through which `serde_json::Number` passes its lexeme.
struct Map<'a> {
    ser: &'a mut DocSerializer,
    mark: Option<Mark>,
    len: usize,
    outer: Option<Mark>,
}

impl Map<'_> {
    #[inline]
    fn field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<()> {
        if self.mark.is_none() {
            self.ser.scratch.clear();
            value.serialize(KeySerializer {
                out: &mut self.ser.scratch,
            })?;
            return self.ser.number_lexeme();
        }
        self.ser.b.string(key.as_bytes());
        value.serialize(&mut *self.ser)?;
        self.len += 1;
        Ok(())
    }

    #[inline]
    fn finish(self) -> Result<()> {
        let Some(mark) = self.mark else {
            return Ok(());
        };
        self.ser.b.end_object(mark, self.len);
        self.ser.leave();
        if let Some(outer) = self.outer {
            self.ser.end_variant(outer);
        }
        Ok(())
    }
}

impl SerializeMap for Map<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<()> {
        let ser = &mut *self.ser;
        ser.scratch.clear();
        key.serialize(KeySerializer {
            out: &mut ser.scratch,
        })?;
        ser.b.string(&ser.scratch);
        Ok(())
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<()> {
        value.serialize(&mut *self.ser)?;
        self.len += 1;
        Ok(())
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeStruct for Map<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

impl SerializeStructVariant for Map<'_> {
    type Ok = ();
    type Error = Error;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        key: &'static str,
        value: &T,
    ) -> Result<()> {
        self.field(key, value)
    }

    fn end(self) -> Result<()> {
        self.finish()
    }
}

/// Writes a map key's text into a scratch buffer (integers and bools stringified).
struct KeySerializer<'a> {
    out: &'a mut Vec<u8>,
}

impl KeySerializer<'_> {
    #[inline]
    fn text(self, s: &[u8]) -> Result<()> {
        self.out.extend_from_slice(s);
        Ok(())
    }
}

macro_rules! key_int {
    ($($method:ident: $t:ty),*) => {$(
        #[inline]
        fn $method(self, v: $t) -> Result<()> {
            let mut buf = itoa::Buffer::new();
            self.text(buf.format(v).as_bytes())
        }
    )*};
}

impl Serializer for KeySerializer<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = Impossible<(), Error>;
    type SerializeTuple = Impossible<(), Error>;
    type SerializeTupleStruct = Impossible<(), Error>;
    type SerializeTupleVariant = Impossible<(), Error>;
    type SerializeMap = Impossible<(), Error>;
    type SerializeStruct = Impossible<(), Error>;
    type SerializeStructVariant = Impossible<(), Error>;

    key_int!(
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_i128: i128, serialize_u8: u8, serialize_u16: u16, serialize_u32: u32,
        serialize_u64: u64, serialize_u128: u128
    );

    #[inline]
    fn serialize_bool(self, v: bool) -> Result<()> {
        self.text(if v { b"true" } else { b"false" })
    }

    fn serialize_f32(self, _v: f32) -> Result<()> {
        Err(bad_key())
    }

    fn serialize_f64(self, _v: f64) -> Result<()> {
        Err(bad_key())
    }

    #[inline]
    fn serialize_char(self, v: char) -> Result<()> {
        let mut buf = [0u8; 4];
        self.text(v.encode_utf8(&mut buf).as_bytes())
    }

    #[inline]
    fn serialize_str(self, v: &str) -> Result<()> {
        self.text(v.as_bytes())
    }

    fn serialize_bytes(self, _v: &[u8]) -> Result<()> {
        Err(bad_key())
    }

    fn serialize_none(self) -> Result<()> {
        Err(bad_key())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<()> {
        Err(bad_key())
    }

    fn serialize_unit_struct(self, _name: &'static str) -> Result<()> {
        Err(bad_key())
    }

    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<()> {
        self.text(variant.as_bytes())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<()> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<()> {
        Err(bad_key())
    }

    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq> {
        Err(bad_key())
    }

    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple> {
        Err(bad_key())
    }

    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct> {
        Err(bad_key())
    }

    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant> {
        Err(bad_key())
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap> {
        Err(bad_key())
    }

    fn serialize_struct(self, _name: &'static str, _len: usize) -> Result<Self::SerializeStruct> {
        Err(bad_key())
    }

    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant> {
        Err(bad_key())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn compact<T: Serialize + ?Sized>(v: &T) -> String {
        crate::json::to_string_compact(to_doc(v).unwrap().root())
    }

    #[test]
    fn scalars_and_containers() {
        assert_eq!(
            compact(&(1u8, -2i64, 2.5f64, 0.1f32, 'x', "s", ())),
            r#"[1,-2,2.5,0.1,"x","s",null]"#
        );
        assert_eq!(compact(&Vec::<u8>::new()), "[]");
        assert_eq!(compact(&f64::NAN), "null");
        assert_eq!(
            compact(&i128::MIN),
            "-170141183460469231731687303715884105728"
        );
    }

    #[test]
    fn depth_limit_counts_containers() {
        let v = vec![vec![vec![1]]];
        assert!(to_doc_with_depth(&v, 3).is_ok());
        let e = to_doc_with_depth(&v, 2).unwrap_err();
        assert_eq!(e.classify(), Category::Depth);
        assert_eq!(e.message(), "value nested deeper than 2 levels");
        assert!(to_doc_with_depth(&5, 0).is_ok());
    }
}
