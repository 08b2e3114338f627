//! Select pushdown (WIRE.md §4): parse only the requested root keys.
//!
//! [`parse_selected`] applies a [`Selector`] to the root object, or to each object element
//! of a root array (other elements, and every nested value, are kept whole). Unselected
//! members are fully validated (syntax, UTF-8, numbers, limits) and scanned for the document
//! flags, but never become nodes or heap bytes.
//!
//! How: the rows of a collection repeat each other's bytes between their values. The first
//! object (and any object that leaves the pattern) is read by the general loop in two
//! passes: the first validates every member and records, for each requested key, where its
//! last value is (so duplicate keys keep the last value), skipping with the parser's own
//! lexers with output turned off; the second builds the object in the selector's order from
//! those spans, parsing again only selected containers and escaped strings. While it reads,
//! the general loop records the object's *row layout*: its pieces, the bytes from the end of
//! one value through the next key's `:` (whitespace included) and the closing `}` (the
//! parser's [`Sep`]), each with its key's place in the selector.
//!
//! The next object is walked through that layout: each piece is one masked 16-byte compare
//! (its bytes were validated, its key looked up and its flags set when the layout was
//! made, so identical bytes decide no error), and only the values are read: strings
//! without escapes from the block masks, numbers and literals by the lexers, unselected
//! values never becoming nodes. When the layout's selected keys come in request order (each
//! once), the walk pushes them onto the tape as it goes and there is no second pass; a row
//! that leaves the layout is dropped from the tape and read again from its `{` by the
//! general loop, whose pieces become the next layout. Otherwise the walk fills the slots
//! and the general loop goes on from where the layout stopped matching.
//!
//! Every selected object is closed with a token of which selector keys it holds: objects
//! with the same keys are thus marked as their predecessor's keys, and walked rows whose
//! values are all scalars as flat, which the TOON encoder's shape analysis reads instead of
//! the keys and values.
//!
//! Measured on 10k flat invoice rows selecting 2 of 6 keys (callgrind, the parse alone):
//! 13.66 M instructions with the general loop for every row, 11.85 M with the walk filling
//! the slots, 10.13 M with the walk pushing, 10.35 M once its strings, numbers and literals
//! went through the parser's own `walk_scalar` (the full parse of the same rows: 10.11 M,
//! with 13 nodes a row instead of 5), 9.13 M once consecutive pushed rows were walked in one
//! call (`selected_object`'s run, `walk_row` inlined) and the same-keys mark written with
//! the object's node. Whole process, `toolwire present` of 10k rows selected to framed TOON:
//! 19.96 M → 13.47 M → 12.30 M (the full response: 16.06 M). Validating every byte is what is
//! left; the selection itself is a small part.

use std::collections::HashMap;

use crate::doc::{Doc, DocBuilder};
use crate::doc::{KeysToken, Mark, PERMUTED_PAIRS, Toon};
use crate::error::Result;
use crate::json::parse::{ParseOptions, Parser, ROW_MEMBERS, Sep, StrTok};

/// Above this many keys a [`Selector`] looks keys up in a hash map instead of a linear scan.
const LINEAR_MAX: usize = 8;

/// A compiled set of root keys, in request order, duplicates collapsed (the first occurrence
/// keeps its place).
///
/// An empty selector selects nothing: every selected object becomes `{}`. (WIRE.md's
/// "`_select: []` means all fields" is the caller's business: call
/// [`parse`](crate::json::parse) instead.)
///
/// ```
/// use toolwire::json::{ParseOptions, Selector, parse_selected};
/// let sel = Selector::new(["total", "id", "total"]);
/// assert_eq!(sel.len(), 2);
/// let doc = parse_selected(
///     br#"[{"id": 1, "note": "x", "total": 9.5}, 7, {"note": "y"}]"#,
///     &sel,
///     &ParseOptions::new(),
/// )?;
/// assert_eq!(format!("{:?}", doc.root()), r#"[{"total": 9.5, "id": 1}, 7, {}]"#);
/// # Ok::<(), toolwire::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct Selector {
    keys: Vec<Box<str>>,
    index: Option<HashMap<Box<str>, usize>>,
}

impl Selector {
    /// Compiles `keys` (request order; later duplicates are dropped).
    pub fn new(keys: impl IntoIterator<Item = impl AsRef<str>>) -> Selector {
        let mut list: Vec<Box<str>> = Vec::new();
        let mut seen: HashMap<Box<str>, usize> = HashMap::new();
        for k in keys {
            let k = k.as_ref();
            if !seen.contains_key(k) {
                seen.insert(k.into(), list.len());
                list.push(k.into());
            }
        }
        let index = (list.len() > LINEAR_MAX).then_some(seen);
        Selector { keys: list, index }
    }

    /// Number of distinct keys.
    pub fn len(&self) -> usize {
        self.keys.len()
    }

    /// True when no key is selected.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The keys, in request order.
    pub fn keys(&self) -> impl ExactSizeIterator<Item = &str> {
        self.keys.iter().map(|k| &**k)
    }

    /// Position of `key` in request order.
    #[inline]
    fn find(&self, key: &[u8]) -> Option<usize> {
        match &self.index {
            None => self.keys.iter().position(|k| k.as_bytes() == key),
            Some(map) => std::str::from_utf8(key)
                .ok()
                .and_then(|k| map.get(k).copied()),
        }
    }
}

/// Parses `bytes` like [`parse`](crate::json::parse), keeping only the `selector`'s keys of
/// the root object, or of each object element of a root array, in the selector's order.
///
/// Accepts and rejects exactly the inputs [`parse`](crate::json::parse) does, with the same
/// errors, and sets the same document flags (skipped strings included); the result equals
/// parsing fully and then picking the requested keys in request order.
///
/// # Errors
///
/// A positioned [`Error`](crate::Error) for invalid JSON or an exceeded limit.
pub fn parse_selected<'s>(
    bytes: &'s [u8],
    selector: &Selector,
    opts: &ParseOptions,
) -> Result<Doc<'s>> {
    Ok(parse_head(bytes, Some(selector), opts, usize::MAX)?.0)
}

/// Parses `bytes` like [`parse_selected`] (with a `selector`) or [`parse`](crate::json::parse)
/// (without), keeping of a root array only its first `keep` elements: the others are
/// validated as the full parse validates them (the same errors, the same document flags)
/// and counted, never put on the tape. Returns the document and, when the root is an array,
/// how many elements it has in the input (its length on the tape is at most `keep`).
///
/// What a presenter's `limit` needs: it keeps the first rows of a collection and counts
/// the others ([`ToolCall::read`](crate::call::ToolCall::read) reads through it).
///
/// ```
/// use toolwire::json::{ParseOptions, Selector, parse_head};
/// let json = br#"[{"id":1,"x":"a"},{"id":2,"x":"b"},{"id":3,"x":"c"}]"#;
/// let (doc, total) = parse_head(json, Some(&Selector::new(["id"])), &ParseOptions::new(), 2)?;
/// assert_eq!(format!("{:?}", doc.root()), r#"[{"id": 1}, {"id": 2}]"#);
/// assert_eq!(total, Some(3));
/// // Elements past the head are still validated.
/// assert!(parse_head(br#"[1, 2, tru]"#, None, &ParseOptions::new(), 1).is_err());
/// # Ok::<(), toolwire::Error>(())
/// ```
///
/// # Errors
///
/// A positioned [`Error`](crate::Error) for invalid JSON or an exceeded limit, the one
/// [`parse`](crate::json::parse) reports.
pub fn parse_head<'s>(
    bytes: &'s [u8],
    selector: Option<&Selector>,
    opts: &ParseOptions,
    keep: usize,
) -> Result<(Doc<'s>, Option<usize>)> {
    // A selection keeps a fraction of the nodes: start at one per 24 input bytes (two of six
    // invoice fields need one per 27), a full parse at one per 10, the head of an array at
    // no more than 32 a kept element; the tape grows if needed, and `finish` returns the
    // slack.
    let per_byte = if selector.is_some() { 24 } else { 10 };
    let nodes = (bytes.len() / per_byte)
        .min(keep.saturating_add(1).saturating_mul(32))
        .min(1 << 26);
    let mut p = Parser::new(bytes, opts, nodes)?;
    let mut st = State {
        slots: vec![None; selector.map_or(0, Selector::len)],
        shape: Vec::new(),
        layout: Vec::new(),
        next: Vec::new(),
        next_ok: false,
        direct: None,
        unordered_containers: false,
    };
    let mut total = None;
    match (p.peek(), selector) {
        (Some(b'{'), Some(sel)) => {
            selected_object(&mut p, sel, &mut st, 0, 1)?;
        }
        (Some(b'['), _) => total = Some(head_array(&mut p, selector, &mut st, keep)?),
        _ => p.value::<true>(0)?,
    }
    Ok((p.finish()?, total))
}

/// Reused between the objects of a root array.
struct State {
    /// Per selected key, where the object has it.
    slots: Vec<Option<Slot>>,
    /// The unescaped keys of the previous object, by member position.
    shape: Vec<KeyShape>,
    /// The row layout: the member pieces of the last object the general loop read to its
    /// end, then its closing piece (empty: none).
    layout: Vec<Piece>,
    /// The pieces of the object being read, so far, while they can make a layout.
    next: Vec<Piece>,
    next_ok: bool,
    /// How the layout's rows are pushed as read, when they can be.
    direct: Option<Direct>,
    /// A walked row with a container among selected members out of request order was
    /// seen: such layouts are walked into the slots from then on.
    unordered_containers: bool,
}

/// A layout whose selected keys come once each: its rows can be pushed as they are read.
struct Direct {
    /// How many members of it are selected, and which keys of the selector they are
    /// (bit `i`: key `i`; not used past 64 keys, where objects close unmarked).
    len: usize,
    keys: u64,
    /// When they do not come in request order: for each member in request order, its place
    /// among the selected members in the input. A row of scalars is put in order on the
    /// tape (two nodes a member); a row with a container there is read again.
    order: Option<Box<[u32]>>,
}

impl Direct {
    /// `None` when a key comes twice, or out of order when `ordered_only` (or too many
    /// keys to reorder).
    fn of(layout: &[Piece], ordered_only: bool) -> Option<Direct> {
        let found: Vec<usize> = layout.iter().filter_map(|piece| piece.found).collect();
        let mut keys = 0u64;
        let mut sorted = true;
        for (i, &k) in found.iter().enumerate() {
            if keys & 1u64.wrapping_shl(k as u32) != 0 && k < 64 {
                return None;
            }
            keys |= 1u64.wrapping_shl(k as u32);
            sorted &= i == 0 || found[i - 1] < k;
        }
        let order = if sorted {
            None
        } else {
            if ordered_only || found.len() > PERMUTED_PAIRS {
                return None;
            }
            let mut order: Vec<u32> = (0..found.len() as u32).collect();
            order.sort_by_key(|&i| found[i as usize]);
            // Duplicates past the 64 bits of `keys`.
            if order
                .windows(2)
                .any(|w| found[w[0] as usize] == found[w[1] as usize])
            {
                return None;
            }
            Some(order.into_boxed_slice())
        };
        Some(Direct {
            len: found.len(),
            keys,
            order,
        })
    }
}

/// Where a key is in the input, `(start, len)`; `None` when it had escapes (its unescaped
/// bytes are then the selector's own).
type KeySpan = Option<(usize, usize)>;

/// Where a selected member was found: its key (borrowable from the input or not) and its
/// value, already lexed when it is a plain string or a number.
#[derive(Clone, Copy)]
struct Slot {
    key: KeySpan,
    value: Lexed,
}

/// Member `k` of the previous object, when its key had no escapes.
struct KeyShape {
    /// Where that key's bytes are in the input, and how many.
    start: usize,
    len: usize,
    /// Its position in the selector.
    found: Option<usize>,
    /// The bytes that lead from the end of the previous member's value to this member's
    /// value when written without whitespace, `,"key":` (`"key":` for the first member), as
    /// a little-endian 16-byte pattern, the mask of its length and the length; `None` when
    /// longer.
    lead: Option<(u128, u128, usize)>,
}

impl KeyShape {
    fn new(start: usize, len: usize, found: Option<usize>, src: &[u8], first: bool) -> Self {
        let comma = usize::from(!first);
        let n = comma + len + 3;
        let lead = (n <= 16).then(|| {
            let mut pat = [0u8; 16];
            if !first {
                pat[0] = b',';
            }
            pat[comma] = b'"';
            pat[comma + 1..comma + 1 + len].copy_from_slice(&src[start..start + len]);
            pat[comma + 1 + len] = b'"';
            pat[comma + 2 + len] = b':';
            (u128::from_le_bytes(pat), u128::MAX >> (128 - 8 * n), n)
        });
        KeyShape {
            start,
            len,
            found,
            lead,
        }
    }

    /// The length of the lead when `src[at..]` starts with it.
    #[inline(always)]
    fn lead_at(&self, src: &[u8], at: usize) -> Option<usize> {
        let (pat, mask, n) = self.lead?;
        let mut w = [0u8; 16];
        w.copy_from_slice(src.get(at..at + 16)?);
        ((u128::from_le_bytes(w) ^ pat) & mask == 0).then_some(n)
    }
}

/// Lexes the key of member `count` (at the current position, after whitespace) and the `:`
/// after it; returns where the key is in the input (`None` when it had escapes) and its
/// place in the selector. Records the key in the row shape.
#[inline(always)]
fn member_key(
    p: &mut Parser<'_, '_>,
    sel: &Selector,
    shape: &mut Vec<KeyShape>,
    count: usize,
) -> Result<(KeySpan, Option<usize>)> {
    let key_at = p.pos + 1;
    if let Some(k) = shape.get(count) {
        if p.repeats_key(k.start, k.len, count) {
            return Ok((Some((key_at, k.len)), k.found));
        }
    }
    let tok = p.member_key(count)?;
    let found = sel.find(p.tok_bytes(tok));
    match tok {
        StrTok::Src { start, len } | StrTok::Plain { start, len, .. } => {
            shape.truncate(count);
            if shape.len() == count {
                shape.push(KeyShape::new(start, len, found, p.src, count == 0));
            }
            Ok((Some((start, len)), found))
        }
        StrTok::Scratch => Ok((None, found)),
    }
}

/// A value seen by the first pass.
#[derive(Clone, Copy)]
enum Lexed {
    /// A string without escapes: `src[start..start + len]`.
    Str(usize, usize),
    /// The same, plain ([`StrTok::Plain`]).
    Plain(usize, usize, Toon),
    /// A number `src[start..end]`, and whether it is a non-integer.
    Num(usize, usize, bool),
    /// Anything else: parse again from this offset.
    At(usize),
}

/// The root array (the position is at its `[`): its first `keep` elements parsed (object
/// elements through `sel`'s selection when there is one, other elements whole), the others
/// only validated. Returns how many elements it has.
fn head_array(
    p: &mut Parser<'_, '_>,
    sel: Option<&Selector>,
    st: &mut State,
    keep: usize,
) -> Result<usize> {
    p.check_depth(1)?;
    p.pos += 1;
    let mark = p.b.begin_array();
    p.skip_ws();
    let mut n = 0;
    if p.peek() == Some(b']') {
        p.pos += 1;
    } else {
        loop {
            p.skip_ws();
            n += match sel {
                _ if n >= keep => p.value::<false>(1).map(|()| 1)?,
                Some(sel) if p.peek() == Some(b'{') => selected_object(p, sel, st, 1, keep - n)?,
                _ => p.value::<true>(1).map(|()| 1)?,
            };
            p.skip_ws();
            match p.peek() {
                Some(b',') => p.pos += 1,
                Some(b']') => {
                    p.pos += 1;
                    break;
                }
                _ => {
                    return Err(p.unexpected("expected ',' or ']' after an array element", p.pos));
                }
            }
        }
    }
    p.b.end_array(mark, n.min(keep));
    Ok(n)
}

/// A member piece of the row layout ([`Sep`]) and its key's place in the selector.
#[derive(Clone, Copy)]
struct Piece {
    sep: Sep,
    found: Option<usize>,
}

/// Where [`walk_row`] stopped.
enum Walk {
    /// The object repeated the layout to its `}` (the position is past it); when pushing,
    /// whether every value pushed was a string, number or literal.
    Closed(bool),
    /// The members before this one are read; the bytes here are not the layout's piece
    /// (the position is where it would start: at the `{`, or at the end of the value before).
    Member(usize),
}

/// Reads the object at the current position (at its `{`) while its bytes repeat the row
/// layout piece by piece: `PUSH`, each selected member onto the tape as it comes (the
/// layout's selected keys are in request order, [`State::direct`]); otherwise into
/// `slots`. A piece's bytes are the ones the general loop lexed and validated at the same
/// member count (so within the same limits, flags already set), and its key's selector
/// lookup holds for them: only the values are read, strings without escapes from the
/// block masks, the rest by the parser's lexers (same errors at the same places).
#[inline(always)]
fn walk_row<const PUSH: bool>(
    p: &mut Parser<'_, '_>,
    layout: &[Piece],
    slots: &mut [Option<Slot>],
    depth: usize,
) -> Result<Walk> {
    let Some((close, members)) = layout.split_last() else {
        return Ok(Walk::Member(0));
    };
    // Layouts are made only with a kernel.
    let Some(classify) = p.string_classifier() else {
        return Ok(Walk::Member(0));
    };
    let src = p.src;
    let max_string = p.opts.max_string_bytes.min(DocBuilder::SHORT_STR_MAX);
    let mut flat = true;
    // The position lives in a register through the row; `p.pos` is set where the lexers
    // take over, and read back after them.
    let mut pos = p.pos;
    for (i, piece) in members.iter().enumerate() {
        let sep = &piece.sep;
        if !sep.matches(src, pos) {
            p.pos = pos;
            return Ok(Walk::Member(i));
        }
        let key_at = pos;
        pos += sep.len();
        match piece.found {
            Some(_) if PUSH => {
                p.b.key_head(sep.key_head(), sep.key_at(key_at).0);
                match p.walk_scalar::<true>(src, pos, classify, max_string)? {
                    Some(next) => pos = next,
                    None => {
                        p.pos = pos;
                        p.value::<true>(depth + 1)?;
                        flat = false;
                        pos = p.pos;
                    }
                }
            }
            Some(k) => {
                let value = match src.get(pos) {
                    Some(b'"') => match p.plain_with::<true>(src, pos + 1, classify) {
                        Ok((end, toon)) if end - pos - 1 <= max_string => {
                            let value = Lexed::Plain(pos + 1, end - pos - 1, toon);
                            pos = end + 1;
                            value
                        }
                        _ => {
                            p.pos = pos;
                            let value = lexed_string(p.lex_string()?, pos);
                            pos = p.pos;
                            value
                        }
                    },
                    Some(b'-' | b'0'..=b'9') => {
                        p.pos = pos;
                        let is_float = p.number::<false>()?;
                        let value = Lexed::Num(pos, p.pos, is_float);
                        pos = p.pos;
                        value
                    }
                    _ => {
                        p.pos = pos;
                        p.value::<false>(depth + 1)?;
                        let value = Lexed::At(pos);
                        pos = p.pos;
                        value
                    }
                };
                slots[k] = Some(Slot {
                    key: Some(sep.key_at(key_at)),
                    value,
                });
            }
            None => match p.walk_scalar::<false>(src, pos, classify, max_string)? {
                Some(next) => pos = next,
                None => {
                    p.pos = pos;
                    p.skip_value(depth + 1)?;
                    pos = p.pos;
                }
            },
        }
    }
    if close.sep.matches(src, pos) {
        p.pos = pos + close.sep.len();
        return Ok(Walk::Closed(flat));
    }
    p.pos = pos;
    Ok(Walk::Member(members.len()))
}

/// A lexed string value as the second pass takes it (`at`: its opening quote).
#[inline(always)]
fn lexed_string(tok: StrTok, at: usize) -> Lexed {
    match tok {
        StrTok::Plain { start, len, toon } => Lexed::Plain(start, len, toon),
        StrTok::Src { start, len } => Lexed::Str(start, len),
        StrTok::Scratch => Lexed::At(at),
    }
}

/// An object at the current position inside `depth` containers, reduced to `sel`; while
/// the objects after it in the array are rows pushed through the layout (and fewer than
/// `max` were read), those too (`max` is 1 for an object that is not an array's element).
/// Returns how many objects it read (at least one).
fn selected_object(
    p: &mut Parser<'_, '_>,
    sel: &Selector,
    st: &mut State,
    depth: usize,
    max: usize,
) -> Result<usize> {
    p.check_depth(depth + 1)?;
    let State {
        slots,
        shape,
        layout,
        next,
        next_ok,
        direct,
        unordered_containers,
    } = st;
    // The next rows of a collection repeat the layout. When its selected keys come in
    // request order, the members go straight onto the tape; a row that leaves the layout
    // is dropped and read again from its `{` by the general loop (whose pieces make the
    // next layout). After a row pushed, the next element is read the same way when it is
    // an object, without going back to the array's loop (a call and the state per row).
    let mut read = 0;
    if let Some(d) = direct.as_ref() {
        loop {
            let brace = p.pos;
            let mark = p.b.begin_object();
            let pushed = match walk_row::<true>(p, layout, slots, depth)? {
                Walk::Closed(flat) => match &d.order {
                    None => {
                        close_selected(p, sel, mark, d.len, d.keys, flat);
                        true
                    }
                    Some(order) if flat => {
                        p.b.permute_members(mark, order);
                        close_selected(p, sel, mark, d.len, d.keys, flat);
                        true
                    }
                    // A container among members to reorder: this row and the next like it
                    // go through the slots.
                    Some(_) => {
                        *unordered_containers = true;
                        false
                    }
                },
                Walk::Member(_) => false,
            };
            if !pushed {
                p.b.abandon_object(mark);
                p.pos = brace;
                break;
            }
            read += 1;
            if read == max || !p.next_row() {
                return Ok(read);
            }
        }
    }
    slots.fill(None);
    // Pass 1: validate every member, remember where the selected values are.
    let from = match direct {
        Some(_) => Some(0),
        None => match walk_row::<false>(p, layout, slots, depth)? {
            Walk::Closed(_) => None,
            Walk::Member(from) => Some(from),
        },
    };
    if let Some(from) = from {
        next.clear();
        next.extend_from_slice(&layout[..from]);
        *next_ok = true;
        general_members(p, sel, slots, shape, next, next_ok, layout, from, depth)?;
        if *next_ok {
            // The general loop made a new layout.
            *next_ok = false;
            *direct = Direct::of(layout, *unordered_containers);
        }
    }
    // Pass 2: build the object in request order.
    let end = p.pos;
    let mark = p.b.begin_object();
    let mut n = 0;
    let mut keys = 0u64;
    for (i, slot) in slots.iter().enumerate() {
        let Some(slot) = *slot else { continue };
        match slot.key {
            Some((start, len)) => p.b.str_src(start, len),
            None => p.b.str_heap(sel.keys[i].as_bytes()),
        }
        match slot.value {
            Lexed::Plain(start, len, toon) => p.b.str_plain(start, len, toon),
            Lexed::Str(start, len) => p.b.str_src(start, len),
            Lexed::Num(start, end, is_float) => p.emit_number(start, end, is_float),
            Lexed::At(at) => {
                p.pos = at;
                p.value::<true>(depth + 1)?;
            }
        }
        n += 1;
        keys |= 1u64.wrapping_shl(i as u32);
    }
    close_selected(p, sel, mark, n, keys, false);
    p.pos = end;
    Ok(read + 1)
}

/// Closes a selected object of `n` members whose keys are the selector's `keys` (bit `i`:
/// key `i`), in request order: two such objects with the same `keys` have the same keys in
/// the same order, which the builder marks for the TOON shape analysis without comparing
/// them (a selector of more than 64 keys closes unmarked).
#[inline(always)]
fn close_selected(
    p: &mut Parser<'_, '_>,
    sel: &Selector,
    mark: Mark,
    n: usize,
    keys: u64,
    flat: bool,
) {
    if sel.len() > 64 {
        return p.b.end_object_unique(mark, n);
    }
    let owner = std::ptr::from_ref(sel) as usize;
    p.b.end_object_keyed_as(mark, n, KeysToken { owner, keys }, flat);
}

/// Pass 1's general loop over the members of the object from member `from` on (the
/// position is at its `{` when `from` is 0, otherwise right after the value of member
/// `from - 1`), recording each member's piece in `next` while `next_ok`; at the `}`, a
/// complete `next` becomes the `layout`, and `next_ok` says whether it did.
#[allow(clippy::too_many_arguments)]
fn general_members(
    p: &mut Parser<'_, '_>,
    sel: &Selector,
    slots: &mut [Option<Slot>],
    shape: &mut Vec<KeyShape>,
    next: &mut Vec<Piece>,
    next_ok: &mut bool,
    layout: &mut Vec<Piece>,
    from: usize,
    depth: usize,
) -> Result<()> {
    let mut count = from;
    // Where the piece of the member being read starts: the `{`, or the end of the value
    // before.
    let mut at = p.pos;
    if count == 0 {
        p.pos += 1;
        p.skip_ws();
        if p.peek() == Some(b'}') {
            p.pos += 1;
            *next_ok = false;
            return Ok(());
        }
    }
    loop {
        // The position is at the first key (`count == 0`) or right after the value of
        // member `count - 1`. Rows usually repeat the previous row's keys: when the
        // bytes here are that row's `,"key":` exactly, written without whitespace, the
        // separator is right and the key's earlier lexing (validity, flags, selector
        // lookup) holds for these identical bytes.
        let fast = match shape.get(count) {
            Some(k) if count < p.opts.max_keys_per_object => {
                k.lead_at(p.src, p.pos).map(|n| (n, k.len, k.found))
            }
            _ => None,
        };
        let (key, found) = match fast {
            Some((n, len, found)) => {
                let key_at = p.pos + n - len - 2;
                p.pos += n;
                (Some((key_at, len)), found)
            }
            None => {
                if count > 0 {
                    p.skip_ws();
                    match p.peek() {
                        Some(b',') => {
                            p.pos += 1;
                            p.skip_ws();
                        }
                        Some(b'}') => {
                            p.pos += 1;
                            // A closing piece has no key (0 bytes, which always fit).
                            let made = *next_ok && !next.is_empty();
                            if made {
                                next.extend(
                                    Sep::new(p.src, at, p.pos, 0, 0)
                                        .map(|sep| Piece { sep, found: None }),
                                );
                                std::mem::swap(next, layout);
                            }
                            *next_ok = made;
                            return Ok(());
                        }
                        _ => {
                            return Err(
                                p.unexpected("expected ',' or '}' after an object member", p.pos)
                            );
                        }
                    }
                }
                member_key(p, sel, shape, count)?
            }
        };
        p.skip_ws();
        if *next_ok {
            let sep = match key {
                Some((k, len)) if next.len() == count && count < ROW_MEMBERS => {
                    Sep::new(p.src, at, p.pos, k - at, len)
                }
                _ => None,
            };
            match sep {
                Some(sep) => next.push(Piece { sep, found }),
                None => *next_ok = false,
            }
        }
        match found {
            // Plain strings and numbers (most values) are lexed once; the rest is
            // parsed again in the second pass.
            Some(i) => {
                let start = p.pos;
                let value = match p.peek() {
                    Some(b'"') => lexed_string(p.lex_string()?, start),
                    Some(b'-' | b'0'..=b'9') => {
                        let is_float = p.number::<false>()?;
                        Lexed::Num(start, p.pos, is_float)
                    }
                    _ => {
                        p.value::<false>(depth + 1)?;
                        Lexed::At(start)
                    }
                };
                slots[i] = Some(Slot { key, value });
            }
            None => p.skip_value(depth + 1)?,
        }
        count += 1;
        at = p.pos;
    }
}
