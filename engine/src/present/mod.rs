//! Presenters (WIRE.md §4, §5, §6, §7): one definition per domain entity, applied to every
//! response that carries it.
//!
//! A [`Presenter`] is built once with [`Presenter::builder`] (or read from a presenter file
//! with [`Presenter::from_doc`], CLI.md "Presenter file") and is then immutable, `Send + Sync`,
//! cheap to share in an `Arc`. [`Presenter::present`] runs the stages of WIRE.md §5 in order:
//!
//! 1. truncate (collections: `limit`, then `token_budget` measured on the data block as
//!    written, in the format `Auto` chose: [`measure`]),
//! 2. validate and strip against the [`Schema`] (`OUTPUT_VALIDATION_FAILED` on any problem),
//! 3. redact (paths compiled once into a trie; redaction happens while the derived document is
//!    built, before any block exists, and cannot be skipped),
//! 4. UI, 5. rules, 6. suggestions, 7. embeds — all over the derived (stripped, redacted) data,
//! 8. `_select` on the data block only.
//!
//! Stages 1–3 and the embedded children's schema and redaction are one pass over the input that
//! writes the derived [`Doc`](crate::Doc) with a [`DocBuilder`](crate::DocBuilder): strings are
//! borrowed from the input bytes where the input document borrowed them, so the only
//! allocation is the derived tape (and its heap for censors and copied strings).
//!
//! The common case copies nothing: a collection under an object schema of leaf properties
//! (redaction of whole properties allowed; no `additionalProperties`, no embeds) whose
//! presenter has no collection UI, collection rules or collection suggestion callbacks (item
//! rules and suggestions read the first kept row, materialised alone) — or has them, and every
//! row is kept, unredacted and canonical (they then read the input rows, the same values) —
//! is validated by a pass that writes nothing, and its data block is a *row view*: the input
//! rows read through the compiled field list (schema order or the `_select` order, censors in
//! place), encoded straight from the input tape, byte-identical to the derived document's
//! encoding (TOON as a table when every row shows the same fields, else in list form). A row that fails a
//! check or a kept cell that is an array or object sends the call to the derived document as
//! before.
//!
//! ## Decisions where WIRE.md and CLI.md are silent
//!
//! * A root `null` is "no item": it is written `null`, only static rules apply (no validation,
//!   no item UI, rules, suggestions or embeds). Any other non-array root is a single item.
//! * Output validation messages: `item <i> '<path>': expected <types>, got <type>` with
//!   `<types>` the schema's types joined by ` | ` (`any value` without a type), `<type>` one of
//!   `null boolean number string array object`, or `missing` for an absent required field;
//!   `expected one of 'a', 'b', got 'x'` for `enum` (`got a redacted value` under a
//!   redacted path: a redacted value is never quoted; any other quoted value, and data keys
//!   in the path, are cut to 47 scalars + `...` past 50, as WIRE.md §8 cuts `You sent:`);
//!   paths as `a.b[2].c`; a problem at the item itself is written `item <i>: …`. The count
//!   covers every problem, the list the first ten.
//! * `additionalProperties: true` keeps undeclared fields after the declared ones, in input
//!   order. An embedded key is kept even when the parent schema does not declare it (after
//!   the declared ones).
//! * Redaction: `*` matches every member of an object, `[*]` every element of an array; the
//!   value is validated before it is censored, on every path (no check is skipped because
//!   the value is redacted); a parent's paths that reach into embedded data
//!   apply together with the child's. Censors are never scanned per value (their tag flags
//!   are noted once per call).
//! * Embedded children govern nested data with their schema and redaction, not their `limit`
//!   or `token_budget` (no nested truncation, no nested notice). An array value is the child's
//!   collection (collection UI, first-element item rules), an object its item.
//! * Templates: `{count}`, `{shown}`, `{hidden}` are also valid in item UI (1, 1, 0);
//!   collection `summary`/`markdown` read `{path}` from the first kept item.
//! * `_select`: with no schema any name is accepted; a valid name absent from an item is just
//!   absent. Non-array and non-string details: `Expected an array of field names. You sent:
//!   <v>. Valid options: …` and `Expected a field name (string). You sent: <v>. Valid
//!   options: …`.
//! * `token_budget`: the data block as written (stripped, redacted, selected, in the final
//!   format) is never over the budget by [`measure`] (`o200k_base` tokens with feature
//!   `tokenizer`, bytes without); rows are costed with only the root keys the schema lets
//!   through to find the count quickly, and the block itself decides, so the result is the
//!   same whether the parser already skipped the other fields or the schema strips them.
//! * A root string is presented as a JSON string value like any primitive item (the
//!   verbatim-text rule of WIRE.md §1.3 is for handler text results, outside presenters).
//! * Presenter files also accept `item_rules` (static, for the single item or the first kept
//!   item) next to `rules` and `collection_rules` (static, for collections, also when empty),
//!   `null` entries in rule lists are dropped, `format` is one of `pretty` (or `json`),
//!   `compact`, `toon` (pipe, or `toon-pipe`), `toon-comma`, `toon-tab`, and schema nodes may
//!   carry `description`/`title` strings (accepted, not published). UI entries put `title`,
//!   `width`, `priority` next to the kind (or inside `table`).
//! * [`Presenter::output_schema`] publishes `$schema` 2020-12, omits `additionalProperties`
//!   unless it is `true`, drops `required` at the root only under select, and types the
//!   embedded keys with the child's schema.
//!
//! ## Performance
//!
//! Redaction paths compile once into a normalised trie; each presenter in each embedding
//! context compiles a row fast path (field index table with an in-order guess, type bit masks)
//! used whenever a row's properties are leaves or redacted wholesale; other properties go
//! through the general writer. No allocation per row: one scratch vector, one path stack, and
//! the derived tape and heap (reserved at the input's node count).
//!
//! A derived tape costs 8 bytes per kept node (16 when this was measured), more than the
//! compact JSON it encodes, and most of its cost is first-touch page faults of the fresh tape:
//! with it, schema and redaction over 100,000 flat invoice rows took 3.8× plain encoding in
//! compact JSON (28.9 ms against 7.5 ms) and 1.44× in TOON. The row view (see above) removes
//! the copy: its validation pass reads each row once, records nothing for rows in the canonical
//! layout (exactly the declared fields, in order) and 4 bytes per declared field per row
//! otherwise, and the encoders write from the input tape (TOON tables in parallel chunks as for
//! any tabular array, the censor's cell encoded once per block). Measured (`present_cost/flat`,
//! 100,000 rows, a loaded 2-core VM, one run): compact JSON 7.97 ms against plain 7.82 ms
//! (1.02×), TOON 8.86 ms against plain 10.32 ms (0.86×; the plain encoder also analyses the
//! table's shape, the view knows it from validation).
//!
//! ```
//! use toolwire::present::{Presenter, Schema};
//! let p = Presenter::builder("Invoice")
//!     .schema(Schema::object().property("id", Schema::string()).property("card", Schema::string()).required(["id"]))
//!     .redact(["card"], None)
//!     .rules(["Amounts are in cents."])
//!     .build()
//!     .unwrap();
//! # let _ = p;
//! ```

mod check;
mod derived;
mod describe;
mod error;
mod fast_row;
mod file;
mod fit;
mod redact;
mod run;
mod schema;
mod select;
mod template;
mod view;
mod writer;

use std::sync::Arc;

pub use describe::{ActionDescription, plain_description, toon_description};
pub use error::{PresentError, PresenterError};
pub use file::Callback;
pub use fit::measure;
pub use run::truncation_notice;
pub(crate) use run::with_general_path;
pub use schema::{EnumValue, Schema, Type};
pub use select::{select_input_property, validate_select};
pub use template::{UNCOUNTED, UiEntry};

use crate::doc::Value;
use crate::wire::{Format, Suggestion, UiBlock};

/// A UI callback: blocks from an item (item UI) or from the kept collection (collection UI).
pub type UiFn = dyn Fn(Value<'_>) -> Vec<UiBlock> + Send + Sync;
/// A rules callback: rules from an item or from the kept collection.
pub type RulesFn = dyn Fn(Value<'_>) -> Vec<String> + Send + Sync;
/// A suggestions callback.
pub type SuggestFn = dyn Fn(Value<'_>) -> Vec<Suggestion> + Send + Sync;

/// A censor function: the text that replaces a redacted value, made from that value (which it
/// alone sees; the data block shows only what it returns).
pub type CensorFn = dyn Fn(Value<'_>) -> String + Send + Sync;

/// A callback and the root fields it declared it reads (`None`: everything).
pub(crate) struct Reading<F: ?Sized> {
    pub(crate) reads: Option<Vec<String>>,
    pub(crate) f: Box<F>,
}

/// One source of UI blocks, in insertion order.
pub(crate) enum UiSource {
    Fn(Reading<UiFn>),
    Entry(template::CompiledEntry),
}

/// One source of suggestions.
pub(crate) enum SuggestSource {
    Fn(Reading<SuggestFn>),
    Static(Suggestion),
}

/// Everything a presenter was configured with.
pub(crate) struct Config {
    pub(crate) name: String,
    pub(crate) schema: Option<Schema>,
    pub(crate) limit: Option<usize>,
    pub(crate) token_budget: Option<usize>,
    pub(crate) redact_paths: Vec<String>,
    pub(crate) censor: String,
    /// Makes the censor from the redacted value instead of `censor` ([`PresenterBuilder::redact_with`]).
    pub(crate) censor_fn: Option<Arc<CensorFn>>,
    pub(crate) rules: Vec<String>,
    pub(crate) item_rules: Vec<Reading<RulesFn>>,
    pub(crate) collection_rules: Vec<Reading<RulesFn>>,
    pub(crate) item_ui: Vec<UiSource>,
    pub(crate) collection_ui: Vec<UiSource>,
    pub(crate) item_suggest: Vec<SuggestSource>,
    pub(crate) collection_suggest: Vec<SuggestSource>,
    pub(crate) embeds: Vec<(String, Presenter)>,
    pub(crate) select: bool,
    pub(crate) format: Format,
}

/// The compiled form of a presenter in one embedding context: its redaction trie (merged with
/// the parent's paths that reach into it) and its embeds' plans.
pub(crate) struct Plan {
    pub(crate) cfg: Arc<Config>,
    pub(crate) redact: redact::RNode,
    pub(crate) embeds: Vec<EmbedPlan>,
    /// The row fast path, when the schema allows it (see [`fast_row::FastRow`]).
    pub(crate) fast: Option<Arc<fast_row::FastRow>>,
    /// Stages 4–7 may produce something for this plan or one embedded in it.
    pub(crate) derived: bool,
    /// Some censor of this plan or of one embedded in it holds a reserved tag sequence /
    /// a lone surrogate escape (noted once per call, never scanned per value).
    pub(crate) censor_tag: bool,
    pub(crate) censor_surrogate: bool,
    /// The scale of the compile budget: bytes of the redaction paths of this presenter and
    /// every embedded one, plus [`BUDGET_PER_EMBED`] per embed (saturating).
    redact_bytes: usize,
}

/// An embedded child: its plan when the value is an object and when it is an array. Both are
/// the child's own plan (shared, not compiled again) unless the parent's redaction reaches
/// into the child: only then is a plan compiled for that context, so loading nested embeds
/// is linear in the file (it was two plans per embed per level, 2^depth).
pub(crate) struct EmbedPlan {
    pub(crate) key: String,
    pub(crate) object: Arc<Plan>,
    pub(crate) array: Arc<Plan>,
}

/// Compile work allowed per presenter beyond its paths' size (nodes and key comparisons).
const BUDGET_BASE: usize = 4096;
/// Compile work allowed per byte of redaction path (the presenter's and its embeds').
const BUDGET_PER_BYTE: usize = 2;
/// Compile work allowed per embed, in path bytes: a parent's `*.c.x` applies to every child,
/// so the work grows with the number of children as well as with the paths.
const BUDGET_PER_EMBED: usize = 20;

/// The context plans compiled so far in one build, by child configuration and the
/// fingerprint of the parent's redaction reaching into it: contexts that see the same paths
/// share one plan (nested embeds whose redaction reaches a few levels down would otherwise
/// compile 2^depth contexts).
type Contexts = std::collections::HashMap<(usize, String), Arc<Plan>>;

impl Plan {
    /// The plan of `cfg` whose own redaction is merged with `extra`, the parent's trie node
    /// reaching into it. For a context (`extra` given), `base` is the plan of the same
    /// configuration compiled without `outside`, the part of `extra` that the nearest
    /// ancestor being compiled contributes: an embed that `outside` does not reach takes
    /// the base's plan (compiling it again would recompile the whole chain below for every
    /// ancestor that redacts).
    fn new(
        cfg: Arc<Config>,
        extra: Option<&redact::RNode>,
        outside: Option<&redact::RNode>,
        base: Option<&Plan>,
        budget: &mut redact::Budget,
        contexts: &mut Contexts,
    ) -> Result<Plan, String> {
        let mut redact = redact::RNode::compile(&cfg.redact_paths, budget)?;
        if let Some(extra) = extra {
            redact.merge(extra, budget)?;
            redact.normalize(budget)?;
        }
        // The paths still without a censor are this presenter's own; the ones merged from
        // a parent keep the parent's (WIRE.md §5: each presenter redacts with its censor).
        redact.own_censor(&redact::Censor {
            text: Arc::from(cfg.censor.as_str()),
            call: cfg.censor_fn.clone(),
        });
        let mut embeds = Vec::with_capacity(cfg.embeds.len());
        for (i, (key, child)) in cfg.embeds.iter().enumerate() {
            let total = redact.member(key.as_bytes());
            // Without a base (the presenter being built), everything reaching the child is
            // new to the child's own plan.
            let (out, base_object, base_array) = match base {
                Some(b) => (
                    outside.and_then(|o| o.member(key.as_bytes())),
                    &b.embeds[i].object,
                    &b.embeds[i].array,
                ),
                None => (total, &child.plan, &child.plan),
            };
            let cfg = &child.plan.cfg;
            embeds.push(EmbedPlan {
                key: key.clone(),
                object: Plan::context(cfg, total, out, base_object, budget, contexts)?,
                array: Plan::context(
                    cfg,
                    total.and_then(redact::RNode::element),
                    out.and_then(redact::RNode::element),
                    base_array,
                    budget,
                    contexts,
                )?,
            });
        }
        let fast = fast_row::FastRow::compile(cfg.schema.as_ref(), &redact, &embeds, &cfg.censor)
            .map(Arc::new);
        let c = &cfg;
        let own_derived = !(c.rules.is_empty()
            && c.item_rules.is_empty()
            && c.collection_rules.is_empty()
            && c.item_ui.is_empty()
            && c.collection_ui.is_empty()
            && c.item_suggest.is_empty()
            && c.collection_suggest.is_empty());
        let censor = cfg.censor.as_bytes();
        let mut plan = Plan {
            derived: own_derived || embeds.iter().any(|e| e.object.derived),
            censor_tag: crate::tag::contains_reserved_tag(censor),
            censor_surrogate: crate::escape::has_lone_surrogate(censor),
            redact_bytes: cfg.redact_paths.iter().map(String::len).sum::<usize>()
                + cfg.embeds.len().saturating_mul(BUDGET_PER_EMBED),
            cfg: cfg.clone(),
            redact,
            embeds,
            fast,
        };
        for e in &plan.embeds {
            for p in [&e.object, &e.array] {
                plan.censor_tag |= p.censor_tag;
                plan.censor_surrogate |= p.censor_surrogate;
            }
            // Once per child (both contexts hold the same configuration): counting both
            // would double the budget at every level of nesting.
            plan.redact_bytes = plan.redact_bytes.saturating_add(e.object.redact_bytes);
        }
        Ok(plan)
    }

    /// The plan of child configuration `cfg` where the parent's redaction node `total`
    /// reaches into it, `outside` of it new relative to `base` (see [`Plan::new`]).
    fn context(
        cfg: &Arc<Config>,
        total: Option<&redact::RNode>,
        outside: Option<&redact::RNode>,
        base: &Arc<Plan>,
        budget: &mut redact::Budget,
        contexts: &mut Contexts,
    ) -> Result<Arc<Plan>, String> {
        let (Some(total), Some(outside)) = (total, outside.filter(|o| !o.is_empty())) else {
            return Ok(base.clone());
        };
        let key = (Arc::as_ptr(cfg) as usize, total.fingerprint(budget)?);
        if let Some(p) = contexts.get(&key) {
            return Ok(p.clone());
        }
        let plan = Arc::new(Plan::new(
            cfg.clone(),
            Some(total),
            Some(outside),
            Some(base),
            budget,
            contexts,
        )?);
        contexts.insert(key, plan.clone());
        Ok(plan)
    }
}

/// A presenter: schema, limits, redaction, UI, rules, suggestions, embeds (WIRE.md §5).
/// Immutable; `Clone` is cheap (shared configuration).
#[derive(Clone)]
pub struct Presenter {
    pub(crate) plan: Arc<Plan>,
    /// Per-call settings that replace the configured ones ([`Presenter::with_overrides`]).
    overrides: Overrides,
}

/// What one call may set instead of a presenter's configured `format`, `limit` and
/// `token_budget` (the CLI's `--format`/`--limit`/`--token-budget`, the MCP `format` and
/// `limit` arguments, the bindings' options). `None` keeps the presenter's own value.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overrides {
    /// The data format.
    pub format: Option<Format>,
    /// Keep at most this many items of a collection.
    pub limit: Option<usize>,
    /// Keep as many whole items as fit in this many tokens of the data format.
    pub token_budget: Option<usize>,
}

impl Overrides {
    /// `self`, with `other`'s values where it sets them.
    pub fn then(self, other: Overrides) -> Overrides {
        Overrides {
            format: other.format.or(self.format),
            limit: other.limit.or(self.limit),
            token_budget: other.token_budget.or(self.token_budget),
        }
    }
}

impl std::fmt::Debug for Presenter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Presenter")
            .field("name", &self.plan.cfg.name)
            .finish_non_exhaustive()
    }
}

/// Builds a [`Presenter`]; see [`Presenter::builder`].
pub struct PresenterBuilder {
    cfg: Config,
}

impl Presenter {
    /// Starts a presenter named `name` (the name appears in output validation messages).
    pub fn builder(name: impl Into<String>) -> PresenterBuilder {
        PresenterBuilder {
            cfg: Config {
                name: name.into(),
                schema: None,
                limit: None,
                token_budget: None,
                redact_paths: Vec::new(),
                censor: "[REDACTED]".into(),
                censor_fn: None,
                rules: Vec::new(),
                item_rules: Vec::new(),
                collection_rules: Vec::new(),
                item_ui: Vec::new(),
                collection_ui: Vec::new(),
                item_suggest: Vec::new(),
                collection_suggest: Vec::new(),
                embeds: Vec::new(),
                select: false,
                format: Format::Pretty,
            },
        }
    }

    /// The presenter's name.
    pub fn name(&self) -> &str {
        &self.plan.cfg.name
    }

    /// The schema of one item, if any.
    pub fn schema(&self) -> Option<&Schema> {
        self.plan.cfg.schema.as_ref()
    }

    /// Whether `_select` is enabled.
    pub fn select_enabled(&self) -> bool {
        self.plan.cfg.select
    }

    /// The data format (the override's, else the configured one).
    pub fn format(&self) -> Format {
        self.overrides.format.unwrap_or(self.plan.cfg.format)
    }

    /// The collection limit (the override's, else the configured one).
    pub fn limit(&self) -> Option<usize> {
        self.overrides.limit.or(self.plan.cfg.limit)
    }

    /// The token budget (the override's, else the configured one).
    pub fn token_budget(&self) -> Option<usize> {
        self.overrides.token_budget.or(self.plan.cfg.token_budget)
    }

    /// The same presenter with `overrides` applied on top of any earlier ones: shares the
    /// compiled configuration (no re-reading, no rebuilding), so it is cheap per call.
    ///
    /// ```
    /// use toolwire::present::{Overrides, Presenter};
    /// use toolwire::wire::Format;
    ///
    /// let p = Presenter::from_json(br#"{"name": "X", "limit": 5, "format": "toon"}"#).unwrap();
    /// let q = p.with_overrides(Overrides { limit: Some(2), ..Overrides::default() });
    /// assert_eq!((q.limit(), q.format()), (Some(2), "toon".parse::<Format>().unwrap()));
    /// assert_eq!(p.limit(), Some(5));
    /// ```
    pub fn with_overrides(&self, overrides: Overrides) -> Presenter {
        Presenter {
            plan: self.plan.clone(),
            overrides: self.overrides.then(overrides),
        }
    }

    /// The schema's root keys sorted bytewise: the `_select` enum of this presenter.
    pub fn select_names(&self) -> Vec<&str> {
        let mut v: Vec<&str> = self
            .schema()
            .map(|s| s.root_keys().collect())
            .unwrap_or_default();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// The `_select` property JSON of WIRE.md §4 for a tool whose only action uses this
    /// presenter; `None` when select is not enabled.
    pub fn input_schema_property(&self) -> Option<String> {
        select_input_property(&[self])
    }

    /// Root keys the parser must materialise for [`Presenter::present`] with `select`:
    /// `None` means every key (pushdown is not possible). With a schema that declares
    /// `properties` (and no `additionalProperties`), the schema's keys and the embed keys
    /// (validation needs them all, and nothing else survives stripping); otherwise, with an
    /// active `_select`, the selected keys plus every key read by callbacks, templates,
    /// redaction and embeds — or `None` as soon as one callback declared nothing.
    pub fn needed_root_keys(&self, select: Option<&[&str]>) -> Option<Vec<String>> {
        select::needed_root_keys(&self.plan, select)
    }

    /// The parser [`Selector`](crate::json::Selector) of [`Presenter::needed_root_keys`], for
    /// [`parse_selected`](crate::json::parse_selected); `None` when the whole document is
    /// needed (then call [`parse`](crate::json::parse)).
    pub fn selector(&self, select: Option<&[&str]>) -> Option<crate::json::Selector> {
        self.needed_root_keys(select)
            .map(crate::json::Selector::new)
    }
}

impl PresenterBuilder {
    /// The schema of one item.
    pub fn schema(mut self, schema: Schema) -> Self {
        self.cfg.schema = Some(schema);
        self
    }

    /// Keep at most `n` items of a collection (0 allowed).
    pub fn limit(mut self, n: usize) -> Self {
        self.cfg.limit = Some(n);
        self
    }

    /// Keep as many whole items as fit in `n` tokens: the data block as written is never over
    /// `n` by [`measure`] (`o200k_base` tokens with feature `tokenizer`, bytes without), and
    /// is short of it by less than the first dropped item's cost.
    pub fn token_budget(mut self, n: usize) -> Self {
        self.cfg.token_budget = Some(n);
        self
    }

    /// Redact `paths` (`a.b`, `a[*].b`, `*`) with `censor` (default `[REDACTED]`). Adds to
    /// earlier paths; the last censor given wins.
    pub fn redact<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        paths: I,
        censor: Option<&str>,
    ) -> Self {
        self.cfg
            .redact_paths
            .extend(paths.into_iter().map(Into::into));
        if let Some(c) = censor {
            self.cfg.censor = c.to_owned();
            self.cfg.censor_fn = None;
        }
        self
    }

    /// Redact `paths` as [`PresenterBuilder::redact`] does, each value replaced by what
    /// `censor` makes of it (mcp-fusion's function censor: `(v) => '***' + last4(v)`). The
    /// value is validated first, as with a text censor; the function alone sees it, and what
    /// it returns is escaped as any string. The last censor given wins.
    ///
    /// ```
    /// use toolwire::present::Presenter;
    ///
    /// let p = Presenter::builder("Card")
    ///     .redact_with(["number"], |v| {
    ///         let n = v.as_str().and_then(|s| s.to_str()).unwrap_or_default();
    ///         format!("****{}", &n[n.len().saturating_sub(4)..])
    ///     })
    ///     .build()
    ///     .unwrap();
    /// let opts = toolwire::json::ParseOptions::new();
    /// let data = toolwire::json::parse(br#"{"number": "4111111111111111"}"#, &opts).unwrap();
    /// let text = p.present(data.root(), None).unwrap().texts().join("");
    /// assert!(text.contains(r#""number": "****1111""#));
    /// ```
    pub fn redact_with<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        paths: I,
        censor: impl Fn(Value<'_>) -> String + Send + Sync + 'static,
    ) -> Self {
        self.cfg
            .redact_paths
            .extend(paths.into_iter().map(Into::into));
        self.cfg.censor_fn = Some(Arc::new(censor));
        self
    }

    /// Static rules.
    pub fn rules<I: IntoIterator<Item = S>, S: Into<String>>(mut self, rules: I) -> Self {
        self.cfg.rules.extend(rules.into_iter().map(Into::into));
        self
    }

    /// Dynamic rules from the single item or the first kept item; reads every field.
    pub fn item_rules(self, f: impl Fn(Value<'_>) -> Vec<String> + Send + Sync + 'static) -> Self {
        self.item_rules_reading_opt(None, f)
    }

    /// Dynamic item rules that read only the root fields `reads`.
    pub fn item_rules_reading(
        self,
        reads: &[&str],
        f: impl Fn(Value<'_>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.item_rules_reading_opt(Some(reads), f)
    }

    fn item_rules_reading_opt(
        mut self,
        reads: Option<&[&str]>,
        f: impl Fn(Value<'_>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.cfg.item_rules.push(reading(reads, f));
        self
    }

    /// Rules from the whole kept collection (also when empty); reads every field.
    pub fn collection_rules(
        mut self,
        f: impl Fn(Value<'_>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.cfg.collection_rules.push(reading(None, f));
        self
    }

    /// Collection rules that read only the root fields `reads` of the items.
    pub fn collection_rules_reading(
        mut self,
        reads: &[&str],
        f: impl Fn(Value<'_>) -> Vec<String> + Send + Sync + 'static,
    ) -> Self {
        self.cfg.collection_rules.push(reading(Some(reads), f));
        self
    }

    /// Item UI blocks from a callback (reads every field).
    pub fn item_ui(
        mut self,
        f: impl Fn(Value<'_>) -> Vec<UiBlock> + Send + Sync + 'static,
    ) -> Self {
        self.cfg.item_ui.push(UiSource::Fn(reading(None, f)));
        self
    }

    /// Item UI from a callback that reads only `reads`.
    pub fn item_ui_reading(
        mut self,
        reads: &[&str],
        f: impl Fn(Value<'_>) -> Vec<UiBlock> + Send + Sync + 'static,
    ) -> Self {
        self.cfg.item_ui.push(UiSource::Fn(reading(Some(reads), f)));
        self
    }

    /// Collection UI blocks from a callback over the kept collection (reads every field).
    pub fn collection_ui(
        mut self,
        f: impl Fn(Value<'_>) -> Vec<UiBlock> + Send + Sync + 'static,
    ) -> Self {
        self.cfg.collection_ui.push(UiSource::Fn(reading(None, f)));
        self
    }

    /// Collection UI from a callback that reads only `reads` of the items.
    pub fn collection_ui_reading(
        mut self,
        reads: &[&str],
        f: impl Fn(Value<'_>) -> Vec<UiBlock> + Send + Sync + 'static,
    ) -> Self {
        self.cfg
            .collection_ui
            .push(UiSource::Fn(reading(Some(reads), f)));
        self
    }

    /// A declarative item UI entry (CLI.md: table, summary, markdown, list).
    pub fn item_ui_entry(mut self, entry: UiEntry) -> Self {
        self.cfg
            .item_ui
            .push(UiSource::Entry(template::CompiledEntry::compile(entry)));
        self
    }

    /// A declarative collection UI entry.
    pub fn collection_ui_entry(mut self, entry: UiEntry) -> Self {
        self.cfg
            .collection_ui
            .push(UiSource::Entry(template::CompiledEntry::compile(entry)));
        self
    }

    /// Item suggestions from a callback (reads every field).
    pub fn item_suggestions(
        mut self,
        f: impl Fn(Value<'_>) -> Vec<Suggestion> + Send + Sync + 'static,
    ) -> Self {
        self.cfg
            .item_suggest
            .push(SuggestSource::Fn(reading(None, f)));
        self
    }

    /// Collection suggestions from a callback (reads every field).
    pub fn collection_suggestions(
        mut self,
        f: impl Fn(Value<'_>) -> Vec<Suggestion> + Send + Sync + 'static,
    ) -> Self {
        self.cfg
            .collection_suggest
            .push(SuggestSource::Fn(reading(None, f)));
        self
    }

    /// Item suggestions from a callback that reads only `reads`.
    pub fn item_suggestions_reading(
        mut self,
        reads: &[&str],
        f: impl Fn(Value<'_>) -> Vec<Suggestion> + Send + Sync + 'static,
    ) -> Self {
        self.cfg
            .item_suggest
            .push(SuggestSource::Fn(reading(Some(reads), f)));
        self
    }

    /// Collection suggestions from a callback that reads only `reads` of the items.
    pub fn collection_suggestions_reading(
        mut self,
        reads: &[&str],
        f: impl Fn(Value<'_>) -> Vec<Suggestion> + Send + Sync + 'static,
    ) -> Self {
        self.cfg
            .collection_suggest
            .push(SuggestSource::Fn(reading(Some(reads), f)));
        self
    }

    /// A static item suggestion.
    pub fn item_suggestion(mut self, tool: &str, reason: &str) -> Self {
        self.cfg
            .item_suggest
            .push(SuggestSource::Static(Suggestion {
                tool: tool.into(),
                reason: reason.into(),
            }));
        self
    }

    /// A static collection suggestion.
    pub fn collection_suggestion(mut self, tool: &str, reason: &str) -> Self {
        self.cfg
            .collection_suggest
            .push(SuggestSource::Static(Suggestion {
                tool: tool.into(),
                reason: reason.into(),
            }));
        self
    }

    /// Embeds `child` at root key `key`: the child's schema and redaction govern `item[key]`,
    /// its rules, suggestions and UI are merged (WIRE.md §5 stage 7).
    ///
    /// Embedding the same key again replaces the earlier child (the key moves to the end).
    pub fn embed(mut self, key: impl Into<String>, child: Presenter) -> Self {
        // Duplicates are dropped by `build`, in one pass (a `retain` here was quadratic).
        self.cfg.embeds.push((key.into(), child));
        self
    }

    /// Enables `_select`.
    pub fn select(mut self, on: bool) -> Self {
        self.cfg.select = on;
        self
    }

    /// The data format (default pretty JSON).
    pub fn format(mut self, format: Format) -> Self {
        self.cfg.format = format;
        self
    }

    /// Finishes the presenter: compiles redaction paths, templates and embeds.
    ///
    /// # Errors
    ///
    /// `required` naming an undeclared property, a redaction path or an embed key that
    /// cannot exist under the schema, a table without columns, or redaction paths too complex
    /// to compile (see the redaction budget in `present/redact.rs`).
    ///
    /// Linear in the size of the configuration (hash lookups; the child presenters' plans
    /// are shared, not compiled again).
    pub fn build(mut self) -> Result<Presenter, PresenterError> {
        dedup_embeds(&mut self.cfg.embeds);
        let schema = self.cfg.schema.as_ref();
        let mut lookup = check::Lookup::default();
        if let Some(s) = schema {
            check::required(s, "schema", &mut lookup)?;
        }
        for (which, list) in [
            ("item", &self.cfg.item_ui),
            ("collection", &self.cfg.collection_ui),
        ] {
            for (i, src) in list.iter().enumerate() {
                if let UiSource::Entry(e) = src {
                    let at = format!("ui.{which}[{i}]");
                    if e.is_table_without_columns() {
                        return Err(PresenterError::new(
                            &format!("{at}.table.columns"),
                            "a table needs at least one column",
                        ));
                    }
                    e.check_paths(schema, &mut lookup)
                        .map_err(|m| PresenterError::new(&at, m))?;
                }
            }
        }
        for (i, p) in self.cfg.redact_paths.iter().enumerate() {
            // A syntax error names `redact` as it always has; a path the schema rules out
            // names the entry.
            let segs = redact::parse(p).map_err(|m| PresenterError::new("redact", m))?;
            if let Some(s) = schema {
                if !check::redact_path_can_exist(s, &segs, &mut lookup) {
                    return Err(PresenterError::new(
                        &format!("redact.paths[{i}]"),
                        format!("path '{p}' cannot exist under the schema"),
                    ));
                }
            }
        }
        // An embed declares its key (kept even when the schema does not list it, see the
        // module docs): only a schema whose items cannot be objects rules it out.
        if schema.is_some_and(|s| !check::objectish(s)) {
            if let Some((k, _)) = self.cfg.embeds.first() {
                return Err(PresenterError::new(
                    &format!("embed.{k}"),
                    format!("key '{k}' cannot exist under the schema"),
                ));
            }
        }
        drop(lookup);
        let bytes = self.cfg.embeds.iter().fold(
            self.cfg.redact_paths.iter().map(String::len).sum::<usize>(),
            |n, (_, c)| n.saturating_add(c.plan.redact_bytes),
        );
        let mut budget =
            redact::Budget::new(BUDGET_BASE.saturating_add(bytes.saturating_mul(BUDGET_PER_BYTE)));
        let plan = Plan::new(
            Arc::new(self.cfg),
            None,
            None,
            None,
            &mut budget,
            &mut Contexts::new(),
        )
        .map_err(|m| PresenterError::new("redact", m))?;
        Ok(Presenter {
            plan: Arc::new(plan),
            overrides: Overrides::default(),
        })
    }
}

/// Keeps the last child given for each embed key, at the position of its last `embed` call.
fn dedup_embeds(embeds: &mut Vec<(String, Presenter)>) {
    let mut seen = std::collections::HashSet::with_capacity(embeds.len());
    let mut kept: Vec<(String, Presenter)> = Vec::with_capacity(embeds.len());
    for (k, c) in embeds.drain(..).rev() {
        if seen.insert(k.clone()) {
            kept.push((k, c));
        }
    }
    kept.reverse();
    *embeds = kept;
}

/// A callback and the root fields it reads (`None`: every field), boxed as the `dyn Fn` the
/// presenter stores.
fn reading<T>(
    reads: Option<&[&str]>,
    f: impl Fn(Value<'_>) -> Vec<T> + Send + Sync + 'static,
) -> Reading<dyn Fn(Value<'_>) -> Vec<T> + Send + Sync> {
    Reading {
        reads: reads.map(owned),
        f: Box::new(f),
    }
}

fn owned(reads: &[&str]) -> Vec<String> {
    reads.iter().map(|s| (*s).to_owned()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn presenter_is_send_sync_and_cheap_to_clone() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Presenter>();
        let p = Presenter::builder("X").build().unwrap();
        let q = p.clone();
        assert!(Arc::ptr_eq(&p.plan, &q.plan));
        assert_eq!(format!("{q:?}"), "Presenter { name: \"X\", .. }");
    }
}
