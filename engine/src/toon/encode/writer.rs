//! The writer: one walk over a value, each container in the form its shape allows.

use rayon::prelude::*;

use super::*;
use crate::sink::Pieces;

/// How a line that opens a value starts.
#[derive(Clone, Copy)]
pub(super) enum Lead {
    /// Indentation of this depth.
    Plain(usize),
    /// A list item's hyphen line for a field at this depth: indentation of `depth - 1`, `- `.
    Hyphen(usize),
}

/// Formatter state: options, the delimiter's byte class table, and whether a line was started.
pub(super) struct Enc<'o> {
    pub(super) opts: &'o EncodeOptions,
    pub(super) delim: u8,
    pub(super) table: &'static [bool; 256],
    pub(super) indent: usize,
    pub(super) started: bool,
    /// The last table of leaves written as an object's member: see [`LeafHeader`].
    leaf_header: LeafHeader,
}

impl<'o> Enc<'o> {
    pub(super) fn new(opts: &'o EncodeOptions, started: bool) -> Self {
        let delim = opts.delimiter.as_byte();
        let table = match opts.delimiter {
            Delimiter::Comma => &QUOTE_COMMA,
            Delimiter::Tab => &QUOTE_TAB,
            Delimiter::Pipe => &QUOTE_PIPE,
        };
        Enc {
            opts,
            delim,
            table,
            indent: opts.indent,
            started,
            leaf_header: LeafHeader::default(),
        }
    }

    /// Starts a line at `depth` (a line feed first unless this is the document's first line).
    #[inline]
    pub(super) fn line<W: Sink + ?Sized>(&mut self, w: &mut W, depth: usize) {
        let n = depth * self.indent;
        if self.started {
            crate::sink::write_line_start(w, n);
        } else {
            crate::sink::write_spaces(w, n);
        }
        self.started = true;
    }

    #[inline(always)]
    pub(super) fn lead<W: Sink + ?Sized>(&mut self, w: &mut W, lead: Lead) {
        match lead {
            Lead::Plain(d) => self.line(w, d),
            Lead::Hyphen(d) => {
                self.line(w, d - 1);
                w.write_clean(b"- ");
            }
        }
    }

    #[inline]
    pub(super) fn string<W: Sink + ?Sized>(&self, w: &mut W, s: &[u8]) {
        if needs_quotes(s, self.table) {
            write_quoted(w, s);
        } else {
            // Unquoted text has no `"`, `\\` or control character (they force quotes).
            w.write_clean(s);
        }
    }

    /// [`Enc::string`] of a plain string ([`Node::StrPlain`] and its kinds: ASCII from space
    /// to DEL without `"`, `\` or `<`), `quoted` or not: nothing in it is escaped. Always
    /// inlined, as [`Enc::node`].
    #[inline(always)]
    fn plain_string<W: Sink + ?Sized>(&self, w: &mut W, s: &[u8], quoted: bool) {
        if quoted {
            // Quoted, a plain string is its JSON string: one reservation for the three
            // pieces (the quotes pre-escaped into a frame).
            crate::escape::write_plain_json_string(w, s);
        } else {
            w.write_clean(s);
        }
    }

    /// A primitive value: its tape node ([`Enc::node`]), so that a plain string's class and
    /// a fraction's lexeme kept by the parser are used as in the table cells.
    #[inline]
    pub(super) fn primitive<W: Sink + ?Sized>(&self, w: &mut W, v: Value<'_>) {
        let doc = v.doc();
        self.node(w, doc, doc.node(v.index()));
    }

    /// `[N]`, `[N|]`, `[N:]`, `[N:|]`…
    pub(super) fn bracket<W: Sink + ?Sized>(&self, w: &mut W, n: usize, keyed: bool) {
        w.write_byte(b'[');
        crate::num::write_u64(w, n as u64);
        if keyed {
            w.write_byte(b':');
        }
        if self.delim != b',' {
            self.delimiter(w);
        }
        w.write_byte(b']');
    }

    pub(super) fn fields<W: Sink + ?Sized>(&self, w: &mut W, fields: &[Field<'_>]) {
        w.write_byte(b'{');
        let mut i = 0;
        while i < fields.len() {
            if i > 0 {
                self.delimiter(w);
            }
            let f = fields[i];
            write_key(w, f.key);
            let span = f.span as usize;
            if span > 1 {
                self.fields(w, &fields[i + 1..i + span]);
            }
            i += span;
        }
        w.write_byte(b'}');
    }

    /// The cells of one row, depth-first through nested groups.
    pub(super) fn cells<W: Sink + ?Sized>(
        &self,
        w: &mut W,
        obj: Object<'_>,
        fields: &[Field<'_>],
        ordered: bool,
        first: &mut bool,
    ) {
        let mut members = obj.iter();
        let mut i = 0;
        while i < fields.len() {
            let f = fields[i];
            let span = f.span as usize;
            let v = if ordered {
                members.next().map(|(_, v)| v)
            } else {
                obj.get(f.key)
            };
            if span == 1 {
                if !*first {
                    self.delimiter(w);
                }
                *first = false;
                match v {
                    Some(v) => self.primitive(w, v),
                    None => w.write(b"null"),
                }
            } else if let Some(o) = v.and_then(|v| v.as_object()) {
                self.cells(w, o, &fields[i + 1..i + span], ordered, first);
            }
            i += span;
        }
    }

    /// The delimiter between two cells ([`write_delimiter`]).
    #[inline(always)]
    pub(super) fn delimiter<W: Sink + ?Sized>(&self, w: &mut W) {
        write_delimiter(w, self.delim);
    }

    /// A primitive tape node. Always inlined: it is the body of every table cell, and left
    /// to the inliner it stayed a call per cell in some builds (the Node addon's: its
    /// encoder took 1.6× the samples of the same rows in the CLI's build).
    #[inline(always)]
    pub(super) fn node<W: Sink + ?Sized>(&self, w: &mut W, doc: &Doc<'_>, node: Node) {
        match node {
            Node::Null => w.write_clean(b"null"),
            Node::Bool(true) => w.write_clean(b"true"),
            Node::Bool(false) => w.write_clean(b"false"),
            Node::IntSrc(s) => crate::num::write_int_lexeme(w, doc.src_bytes(s)),
            Node::IntHeap(s) => crate::num::write_int_lexeme(w, doc.heap_bytes(s)),
            Node::Float(x) => crate::num::write_f64(w, x.get()),
            Node::FloatSrc(s) => w.write_clean(doc.src_bytes(s)),
            Node::StrSrc(s) => self.string(w, doc.src_bytes(s)),
            Node::StrPlain(s) => {
                let s = doc.src_bytes(s);
                self.plain_string(w, s, needs_quotes(s, self.table));
            }
            // No byte of a bare string is in any quote table: only the whole-string rules
            // can quote it.
            Node::StrBare(s) => {
                let s = doc.src_bytes(s);
                self.plain_string(w, s, bare_needs_quotes(s));
            }
            Node::StrQuoted(s) => self.plain_string(w, doc.src_bytes(s), true),
            Node::StrHeap(s) => self.string(w, doc.heap_bytes(s)),
            // Only primitives reach here.
            Node::Array { .. } | Node::Object { .. } => w.write(b"null"),
        }
    }

    /// [`Enc::cells`] for a row whose keys are in header order, straight off the tape.
    pub(super) fn cells_tape<W: Sink + ?Sized>(
        &self,
        w: &mut W,
        doc: &Doc<'_>,
        obj: usize,
        fields: &[Field<'_>],
        first: &mut bool,
    ) {
        let nodes = doc.nodes();
        let mut i = obj + 1;
        let mut f = 0;
        while f < fields.len() {
            let span = fields[f].span as usize;
            let v = i + 1;
            if span == 1 {
                if !*first {
                    self.delimiter(w);
                }
                *first = false;
                self.node(w, doc, nodes.at(v));
                i = v + 1;
            } else {
                self.cells_tape(w, doc, v, &fields[f + 1..f + span], first);
                i = doc.next_sibling(v);
            }
            f += span;
        }
    }

    /// [`Enc::cells_tape`] of a row whose columns are all leaves: its members are a key node
    /// and a value node each, so the cells are every other node, with no field spans to
    /// follow and no nesting to carry the first cell's flag through. The delimiter is `D`.
    #[inline(always)]
    fn cells_flat<W: Sink + ?Sized, const D: u8>(
        &self,
        w: &mut W,
        doc: &Doc<'_>,
        obj: usize,
        columns: usize,
    ) {
        let values = doc.nodes().slice(obj + 1..obj + 1 + 2 * columns);
        if columns > 0 {
            self.node(w, doc, values.at(1));
        }
        for c in 1..columns {
            write_delimiter(w, D);
            self.node(w, doc, values.at(2 * c + 1));
        }
    }

    /// Starts the line of a table's row `n` at `depth` (`line`: the bytes every row's line
    /// starts with once a line was started, [`crate::sink::line_start_bytes`]); false, having
    /// written nothing, when the stream was dropped (checked every 1024 rows: cheap).
    #[inline(always)]
    fn row_line<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        n: usize,
        line: Option<&[u8]>,
        depth: usize,
    ) -> bool {
        if n & 0x3FF == 0x3FF && w.cancelled() {
            return false;
        }
        match line {
            Some(line) if self.started => crate::sink::write_line_bytes(w, line),
            _ => self.line(w, depth),
        }
        true
    }

    /// [`Enc::rows`] of rows whose columns are all leaves, in header order, with the
    /// delimiter `D` fixed at compile time (one loop per delimiter: no per-cell look at it).
    fn rows_flat<'d, W: Sink + ?Sized, I: Iterator<Item = Value<'d>>, const D: u8>(
        &mut self,
        w: &mut W,
        rows: I,
        columns: usize,
        depth: usize,
    ) {
        // Every row's line starts alike once a line was started.
        let line = crate::sink::line_start_bytes(w, depth * self.indent);
        for (n, row) in rows.enumerate() {
            if !self.row_line(w, n, line, depth) {
                return;
            }
            self.cells_flat::<W, D>(w, row.doc(), row.index(), columns);
        }
    }

    /// [`Enc::rows`] of the rows of an ordered shape with groups (`fields`): each cell is the
    /// node at its offset in the row ([`leaf_offsets`]), with no field spans to follow and no
    /// nesting to carry the first cell's flag through. The delimiter is `D`. A row whose
    /// nodes end before the last offset (none of a table) is written field by field.
    #[inline(never)]
    fn rows_grouped<'d, W: Sink + ?Sized, I: Iterator<Item = Value<'d>>, const D: u8>(
        &mut self,
        w: &mut W,
        rows: I,
        fields: &[Field<'_>],
        depth: usize,
    ) {
        let mut offsets = Vec::with_capacity(fields.len());
        let len = leaf_offsets(fields, 0, &mut offsets) as usize;
        let Some((&first, rest)) = offsets.split_first() else {
            return;
        };
        // Every row's line starts alike once a line was started.
        let line = crate::sink::line_start_bytes(w, depth * self.indent);
        for (n, row) in rows.enumerate() {
            if !self.row_line(w, n, line, depth) {
                return;
            }
            let (doc, obj) = (row.doc(), row.index());
            let Some(cells) = doc.nodes().get_slice(obj + 1..obj + 1 + len) else {
                self.cells_tape(w, doc, obj, fields, &mut true);
                continue;
            };
            self.node(w, doc, cells.at(first as usize));
            for &at in rest {
                write_delimiter(w, D);
                self.node(w, doc, cells.at(at as usize));
            }
        }
    }

    /// Rows whose `columns` cells are all leaves, in header order ([`Enc::rows_flat`] for
    /// this delimiter).
    fn leaf_rows<'d, W: Sink + ?Sized, I: Iterator<Item = Value<'d>>>(
        &mut self,
        w: &mut W,
        rows: I,
        columns: usize,
        depth: usize,
    ) {
        match self.delim {
            b',' => self.rows_flat::<W, I, b','>(w, rows, columns, depth),
            b'|' => self.rows_flat::<W, I, b'|'>(w, rows, columns, depth),
            _ => self.rows_flat::<W, I, b'\t'>(w, rows, columns, depth),
        }
    }

    /// Writes `arr`, an object member's array of `body`-deep rows, as a table with the
    /// header of the last table of leaves written as a member ([`LeafHeader`]) when the
    /// tape shows it is one with those keys ([`marked_leaf_rows`], the check of
    /// [`marked_leaf_table`], with the keys compared instead of collected, quoted and
    /// written again). False, having written nothing, otherwise.
    fn repeated_leaf_table<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        arr: Array<'_>,
        body: usize,
    ) -> bool {
        let k = self.leaf_header.keys.len();
        if k == 0 {
            return false;
        }
        let first = arr.as_value().index() + 1;
        let keys = &self.leaf_header.keys;
        let same = !arr.is_empty()
            && matches!(arr.as_value().doc().nodes().get(first),
                Some(Node::Object { len, .. }) if len as usize == k)
            && marked_leaf_rows(arr, first, k, |f, key| key == keys.get(f));
        if !same {
            return false;
        }
        self.bracket(w, arr.len(), false);
        w.write(&self.leaf_header.header);
        self.leaf_rows(w, arr.iter(), k, body);
        true
    }

    /// `count` rows from `rows`, one line each at `depth`.
    pub(super) fn rows<'d, W: Sink + ?Sized, I: Iterator<Item = Value<'d>>>(
        &mut self,
        w: &mut W,
        rows: I,
        shape: &Shape<'_>,
        depth: usize,
    ) {
        if shape.ordered && shape.fields.iter().all(|f| f.span == 1) {
            return self.leaf_rows(w, rows, shape.fields.len(), depth);
        }
        if shape.ordered {
            return match self.delim {
                b',' => self.rows_grouped::<W, I, b','>(w, rows, &shape.fields, depth),
                b'|' => self.rows_grouped::<W, I, b'|'>(w, rows, &shape.fields, depth),
                _ => self.rows_grouped::<W, I, b'\t'>(w, rows, &shape.fields, depth),
            };
        }
        for (n, row) in rows.enumerate() {
            // A dropped stream stops the work (checked every 1024 rows: cheap).
            if n & 0x3FF == 0x3FF && w.cancelled() {
                return;
            }
            self.line(w, depth);
            if shape.ordered {
                self.cells_tape(w, row.doc(), row.index(), &shape.fields, &mut true);
            } else if let Some(o) = row.as_object() {
                self.cells(w, o, &shape.fields, false, &mut true);
            }
        }
    }

    /// `n` rows of a [`TableRows`] from `start`: one line each at depth 1, or (`list`) one
    /// list item each.
    pub(super) fn source_rows<W: Sink + ?Sized, T: TableRows>(
        &mut self,
        w: &mut W,
        rows: &T,
        start: T::Row,
        n: usize,
        list: bool,
    ) {
        let mut row = start;
        for i in 0..n {
            // A dropped stream stops the work (checked every 1024 rows: cheap).
            if i & 0x3FF == 0x3FF && w.cancelled() {
                return;
            }
            if i > 0 {
                row = rows.next(row);
            }
            if list {
                let mut item = Item {
                    enc: self,
                    first: true,
                };
                rows.write_item(&mut item, w, row);
                item.finish(w);
                continue;
            }
            self.line(w, 1);
            rows.write_cells(
                &mut Cells {
                    enc: self,
                    first: true,
                },
                w,
                row,
            );
        }
    }

    /// Rows of a large tabular array, encoded in parallel chunks and stitched in order.
    pub(super) fn rows_parallel<'d, W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        starts: &Chunks<'d>,
        shape: &Shape<'_>,
        depth: usize,
    ) {
        let parts: Vec<TapeRows<'_, 'd>> = starts
            .iter()
            .enumerate()
            .map(|(k, (start, n))| TapeRows {
                start: start.clone(),
                n: *n,
                end: starts.get(k + 1).map(|(next, _)| next.position()),
                shape,
                depth,
            })
            .collect();
        self.parts_parallel(w, &parts);
    }

    /// Encodes `parts` (consecutive runs of table rows) in parallel, each into its own
    /// buffer, and appends the buffers to `w` in order.
    ///
    /// Called from outside the pool (the CLI, a binding, the server's blocking threads), the
    /// parts flow through [`crate::sink::write_ordered`]: the pool's threads take parts in order
    /// and the calling thread writes each as soon as it and those before it are done, so
    /// the sink's work (a write to a pipe or socket, Node's copy of each chunk into a V8
    /// string) overlaps the encoding, and no thread waits at a batch's end. From inside the
    /// pool (a nested array of a part being encoded), a thread must not block on work the
    /// pool has yet to run: batches of `4 × threads` parts, each a rayon fork-join, then
    /// copied ([`stitch`]).
    pub(super) fn parts_parallel<W: Sink + ?Sized, P: RowPart>(&mut self, w: &mut W, parts: &[P]) {
        let threads = rayon::current_num_threads().max(1);
        if rayon::current_thread_index().is_none() && threads > 1 {
            let (opts, escape) = (self.opts, w.escapes());
            crate::sink::write_ordered(
                w,
                parts.len(),
                |i, buf| encode_part(opts, escape, &parts[i], buf),
                |w, buf| {
                    if escape {
                        w.write_escaped_owned(buf);
                    } else {
                        w.write_owned(buf);
                    }
                },
            );
            self.started = true;
            return;
        }
        let batch = threads * 4;
        let mut bufs: Vec<Vec<u8>> = vec![Vec::new(); batch.min(parts.len())];
        let opts = self.opts;
        // Into a framing sink, each worker escapes its own chunk: the stitching thread then
        // only copies (escaping is fused and parallel too).
        let escape = w.escapes();
        for group in parts.chunks(batch) {
            if w.cancelled() {
                return;
            }
            bufs.par_iter_mut()
                .zip(group.par_iter())
                .for_each(|(buf, part)| encode_part(opts, escape, part, buf));
            stitch(w, &bufs[..group.len()], escape);
        }
        self.started = true;
    }

    pub(super) fn root<W: Sink + ?Sized>(&mut self, w: &mut W, v: Value<'_>) {
        match v.get() {
            ValueRef::Array(a) => self.array(w, None, a, Lead::Plain(0), 1, false),
            ValueRef::Object(o) => {
                if o.is_empty() {
                    return;
                }
                if let Some(shape) = keyed_shape(o) {
                    self.keyed(w, None, o, &shape, Lead::Plain(0), 1);
                } else {
                    for (k, v) in o {
                        self.member(w, k.as_bytes(), v, Lead::Plain(0), 0);
                    }
                }
            }
            ValueRef::String(s) => {
                let s = s.as_bytes();
                if s.starts_with("\u{feff}".as_bytes()) {
                    write_quoted(w, s);
                } else {
                    self.string(w, s);
                }
            }
            _ => self.primitive(w, v),
        }
    }

    /// One object member whose key line is at `depth` and starts as `lead` says.
    pub(super) fn member<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        key: &[u8],
        v: Value<'_>,
        lead: Lead,
        depth: usize,
    ) {
        self.lead(w, lead);
        write_key(w, key);
        self.member_value(w, v, depth);
    }

    /// What follows a member's key, its key line at `depth` (the line and the key written).
    fn member_value<W: Sink + ?Sized>(&mut self, w: &mut W, v: Value<'_>, depth: usize) {
        // The node once: a primitive is written from it ([`Enc::node`]).
        let doc = v.doc();
        match doc.node(v.index()) {
            Node::Array { .. } => {
                if let Some(a) = v.as_array() {
                    self.array_body(w, true, a, depth + 1, false);
                }
            }
            Node::Object { .. } => {
                let Some(o) = v.as_object() else { return };
                if let Some(shape) = keyed_shape(o) {
                    self.keyed_body(w, o, &shape, depth + 1);
                } else {
                    w.write_byte(b':');
                    for (k, v) in o {
                        self.member(w, k.as_bytes(), v, Lead::Plain(depth + 1), depth + 1);
                    }
                }
            }
            node => {
                w.write(b": ");
                self.node(w, doc, node);
            }
        }
    }

    /// A keyed tabular object: header, then one `entry: cells` row per entry at `body`.
    pub(super) fn keyed<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        key: Option<&[u8]>,
        obj: Object<'_>,
        shape: &Shape<'_>,
        lead: Lead,
        body: usize,
    ) {
        self.lead(w, lead);
        if let Some(k) = key {
            write_key(w, k);
        }
        self.keyed_body(w, obj, shape, body);
    }

    /// [`Enc::keyed`] after its line's lead and key.
    fn keyed_body<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        obj: Object<'_>,
        shape: &Shape<'_>,
        body: usize,
    ) {
        self.bracket(w, obj.len(), true);
        self.fields(w, &shape.fields);
        w.write_byte(b':');
        for (k, v) in obj {
            self.line(w, body);
            write_key(w, k.as_bytes());
            w.write(b": ");
            if let Some(o) = v.as_object() {
                self.cells(w, o, &shape.fields, shape.ordered, &mut true);
            }
        }
    }

    /// An array whose header line starts as `lead`; rows or list items go at depth `body`.
    /// `anon`: the array is itself a list item (never tabular, `[0]:` when empty).
    pub(super) fn array<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        key: Option<&[u8]>,
        arr: Array<'_>,
        lead: Lead,
        body: usize,
        anon: bool,
    ) {
        self.lead(w, lead);
        if let Some(k) = key {
            write_key(w, k);
        }
        self.array_body(w, key.is_some(), arr, body, anon);
    }

    /// [`Enc::array`] after its line's lead and key (`keyed`: there is one).
    fn array_body<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        keyed: bool,
        arr: Array<'_>,
        body: usize,
        anon: bool,
    ) {
        let n = arr.len();
        if n == 0 && !anon {
            w.write(if keyed { b": []" } else { b"[]" });
            return;
        }
        let serial = !self.opts.parallel || n < self.opts.parallel_threshold;
        if keyed && serial && self.repeated_leaf_table(w, arr, body) {
            return;
        }
        if arr.iter().all(|v| v.is_primitive()) {
            self.bracket(w, n, false);
            w.write_byte(b':');
            for (i, v) in arr.iter().enumerate() {
                w.write_byte(if i == 0 { b' ' } else { self.delim });
                self.primitive(w, v);
            }
            return;
        }
        if !anon {
            let parallel = self.opts.parallel
                && n >= self.opts.parallel_threshold
                && rayon::current_num_threads() > 1
                && arr
                    .iter()
                    .next()
                    .and_then(|v| v.as_object())
                    .is_some_and(|o| !o.is_empty());
            let table = table(arr, parallel.then_some(self.opts.parallel_threshold));
            if let Some((shape, chunks)) = table {
                self.bracket(w, n, false);
                if keyed && serial && shape.ordered && shape.fields.iter().all(|f| f.span == 1) {
                    let mut header = std::mem::take(&mut self.leaf_header);
                    header.keep(self, &shape.fields);
                    self.leaf_header = header;
                }
                self.fields(w, &shape.fields);
                w.write_byte(b':');
                match &chunks {
                    Some(chunks) => self.rows_parallel(w, chunks, &shape, body),
                    None => self.rows(w, arr.iter(), &shape, body),
                }
                return;
            }
        }
        self.bracket(w, n, false);
        w.write_byte(b':');
        self.list_items(w, arr.iter(), body);
    }

    /// The `- …` items of a list-form array at depth `depth`: cut into runs encoded in
    /// parallel like a table's rows when there are at least `parallel_threshold` of them
    /// (the items' starts are found by walking the tape, one hop per item).
    pub(super) fn list_items<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        items: Elements<'_>,
        depth: usize,
    ) {
        let n = items.len();
        let parallel = self.opts.parallel
            && n >= self.opts.parallel_threshold
            && rayon::current_num_threads() > 1;
        if !parallel {
            let mut heads = ItemHeads::default();
            for (i, v) in items.enumerate() {
                if i & 0x3FF == 0x3FF && w.cancelled() {
                    return;
                }
                self.list_item(w, v, depth, &mut heads);
            }
            return;
        }
        let chunk = (self.opts.parallel_threshold / 2).clamp(1, 4096);
        let mut parts = Vec::with_capacity(n.div_ceil(chunk));
        let mut rest = items;
        while rest.len() > 0 {
            let k = chunk.min(rest.len());
            parts.push(ListItems {
                start: rest.clone(),
                n: k,
                depth,
            });
            for _ in 0..k {
                rest.next();
            }
        }
        self.parts_parallel(w, &parts);
    }

    /// One `- …` item of a list-form array at depth `depth`; `heads` are those of the item
    /// before it in the same run of items (empty for a run's first).
    pub(super) fn list_item<W: Sink + ?Sized>(
        &mut self,
        w: &mut W,
        v: Value<'_>,
        depth: usize,
        heads: &mut ItemHeads,
    ) {
        let doc = v.doc();
        match doc.node(v.index()) {
            Node::Array { .. } => {
                heads.forget();
                if let Some(a) = v.as_array() {
                    self.array(w, None, a, Lead::Hyphen(depth + 1), depth + 1, true);
                }
            }
            Node::Object { same_keys, .. } => {
                let Some(o) = v.as_object() else { return };
                if o.is_empty() {
                    heads.forget();
                    self.line(w, depth);
                    w.write_byte(b'-');
                    return;
                }
                // Heads are LF-led raw bytes: for a sink that escapes, or before the
                // document's first line, the members are written one by one.
                let copied = self.started && !w.escapes();
                if copied && same_keys && heads.0.len() == o.len() {
                    // The members' values straight off the tape: a key node, then its value.
                    let mut key = v.index() + 1;
                    for i in 0..o.len() {
                        let head = heads.0.get(i);
                        match doc.node(key + 1) {
                            Node::Array { .. } | Node::Object { .. } => {
                                w.write(&head[..head.len() - 2]);
                                self.member_value(w, doc.value_at(key + 1), depth + 1);
                            }
                            // A primitive: the head with its `: `, then the value.
                            node => {
                                w.write(head);
                                self.node(w, doc, node);
                            }
                        }
                        key = doc.next_sibling(key + 1);
                    }
                    return;
                }
                heads.forget();
                for (i, (k, v)) in o.iter().enumerate() {
                    let lead = if i == 0 {
                        Lead::Hyphen(depth + 1)
                    } else {
                        Lead::Plain(depth + 1)
                    };
                    if copied {
                        heads.push(self.indent, lead, k.as_bytes());
                    }
                    self.member(w, k.as_bytes(), v, lead, depth + 1);
                }
            }
            node => {
                heads.forget();
                self.line(w, depth);
                w.write(b"- ");
                self.node(w, doc, node);
            }
        }
    }
}

/// The keys and header (`{…}:`, as [`Enc::fields`] writes it) of the last table of leaves
/// written as an object's member: the nested tables of a collection (each row's `lines`)
/// mostly have the same keys as the one before, whose header is then copied
/// ([`Enc::repeated_leaf_table`]).
#[derive(Default)]
struct LeafHeader {
    keys: Pieces,
    header: Vec<u8>,
}

impl LeafHeader {
    /// Keeps `fields` (leaves, in order) and their header as `enc` writes it.
    fn keep(&mut self, enc: &Enc<'_>, fields: &[Field<'_>]) {
        self.keys.clear();
        for f in fields {
            self.keys.bytes.extend_from_slice(f.key);
            self.keys.end_piece();
        }
        self.header.clear();
        enc.fields(&mut self.header, fields);
        self.header.push(b':');
    }
}

/// The heads of the members of the last object item written in a run of list items: each
/// member's line start (LF, indentation, `- ` for the first), key as written and `: `. An item
/// marked `same_keys` on the tape has the keys of the last object the builder closed at its
/// depth, which, in one run of consecutive items, is the item before it when that one was an
/// object (objects inside an item are deeper): its heads are those bytes again, one copy a
/// member instead of a line start, a lead and a key's quoting rules. As the JSON writer's
/// member prefixes (docs/DECISIONS.md, "TOON").
#[derive(Default)]
pub(super) struct ItemHeads(Pieces);

impl ItemHeads {
    /// No heads: the next object item writes its own.
    fn forget(&mut self) {
        self.0.clear();
    }

    /// Records the head of the next member: its line start as `lead` says (`indent` spaces a
    /// level), `key` as [`write_key`] writes it, and `: ` (dropped before a container).
    fn push(&mut self, indent: usize, lead: Lead, key: &[u8]) {
        let (spaces, hyphen) = match lead {
            Lead::Plain(d) => (d * indent, false),
            Lead::Hyphen(d) => ((d - 1) * indent, true),
        };
        let bytes = &mut self.0.bytes;
        bytes.push(b'\n');
        bytes.resize(bytes.len() + spaces, b' ');
        if hyphen {
            bytes.extend_from_slice(b"- ");
        }
        write_key(bytes, key);
        bytes.extend_from_slice(b": ");
        self.0.end_piece();
    }
}

/// One part encoded into `buf` (cleared first), escaped for a framing sink when `escape`.
fn encode_part<P: RowPart>(opts: &EncodeOptions, escape: bool, part: &P, buf: &mut Vec<u8>) {
    buf.clear();
    buf.reserve(part.size_hint());
    let mut enc = Enc::new(opts, true);
    if escape {
        let mut esc = crate::escape::EscapingSink::new(buf);
        part.write(&mut enc, &mut esc);
    } else {
        part.write(&mut enc, buf);
    }
}

/// Appends to `out` the offsets of the leaf values of `fields` (one level of an ordered
/// shape, its groups' fields after each group) from their row's first key, the level's
/// first key being at `at`; returns the offset just past the level. Every row of an ordered
/// table lays its nodes out alike: a key and a one-node value per leaf, a key and an object
/// node before a group's members, in header order (the shape analysis checked every row's
/// keys, their order and each column's kind), so a cell is at the same offset in every row.
fn leaf_offsets(fields: &[Field<'_>], mut at: u32, out: &mut Vec<u32>) -> u32 {
    let mut f = 0;
    while f < fields.len() {
        let span = fields[f].span as usize;
        if span == 1 {
            out.push(at + 1);
            at += 2;
        } else {
            at = leaf_offsets(&fields[f + 1..f + span], at + 2, out);
        }
        f += span;
    }
    at
}

/// Writes the delimiter `d` between two cells: a comma or a pipe needs no escape inside a
/// frame (a tab does), so only a tab goes through the sink's escaping.
#[inline(always)]
fn write_delimiter<W: Sink + ?Sized>(w: &mut W, d: u8) {
    if d == b'\t' {
        w.write_byte(b'\t');
    } else {
        w.write_clean(&[d]);
    }
}
