//! JSON Schema (Draft 2020-12) validation with the semantics of the reference runner.
//!
//! The conformance contract validates records with Python `jsonschema`'s
//! `Draft202012Validator` (reference runner `validate_schema`, `validate_action`,
//! `validate_json_schema_object`). This module reproduces its decisions, allocation-free:
//!
//! * [`validate`] checks a value against one of the 14 frozen schemas of
//!   the conformance suite (`conformance/vectors/schemas` in the repository, shipped in
//!   the crate as `schemas/`), asserting `format: "date-time"` by the contract's rule
//!   ([`crate::time::is_date_time`]); every other format is an annotation. `$ref`s resolve
//!   inside the schema (`#/$defs/...`) and, by `$id`, to the other frozen schemas
//!   (`urn:concordia:schema:reference:v0.5` is `reference.schema.json`).
//! * [`validate_with`] checks a value against a schema supplied at run time (a mandate's
//!   `constraints`, a delegation's `scope_restriction`). Like the runner's
//!   `validate_action` it first runs [`check_schema`], and asserts no format.
//! * [`check_schema`] is the part of `Draft202012Validator.check_schema` (validation
//!   against the 2020-12 meta-schema, with the `regex` format asserted) that concerns
//!   the keywords below.
//!
//! # Keywords
//!
//! Assertions and applicators: `type`, `enum`, `const`, `required`, `properties`,
//! `patternProperties`, `additionalProperties`, `propertyNames`, `minProperties`,
//! `maxProperties`, `dependentRequired`, `dependentSchemas`, `prefixItems`, `items`,
//! `contains` (+ `minContains`, `maxContains`), `minItems`, `maxItems`, `uniqueItems`,
//! `minLength`, `maxLength` (Unicode code points, as Python's `len`), `pattern` (Python
//! `re.search` semantics, see [`regex`]), `format`, `minimum`, `maximum`,
//! `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf`, `allOf`, `anyOf`, `oneOf`,
//! `not`, `if`/`then`/`else`, `$ref`, and boolean schemas. `$defs`, `$id`, `$schema`,
//! `$anchor`, `$comment` and the annotation keywords have no effect; unknown keywords are
//! ignored, as in `jsonschema`. The dynamic keywords `unevaluatedProperties`,
//! `unevaluatedItems`, `$dynamicRef` and `$recursiveRef` are refused with
//! `Error::Schema("unsupported keyword")` rather than ignored, so that a schema relying
//! on them fails closed.
//!
//! Equality (`enum`, `const`, `uniqueItems`) is `jsonschema`'s: `1 == 1.0`, `true != 1`,
//! objects regardless of member order. `integer` accepts any number with a zero fraction
//! (`1.0`), as Draft 2020-12 says.
//!
//! # Bounds
//!
//! Evaluation is a recursive interpreter over the schema's and the instance's tapes, at
//! most [`MAX_DEPTH`] schema levels deep (`Error::Limit { kind: Depth, .. }` beyond), and
//! at most [`MAX_STEPS`] subschema evaluations, array-pair comparisons and regex runs per
//! call (`Error::Limit { kind: Steps, .. }` beyond), so that a hostile run-time schema
//! (`{"allOf": [{"$ref": "#"}, {"$ref": "#"}]}`) cannot make the work exponential.
//!
//! Stack (release build, x86-64, measured): about 0.6 KiB per schema level of evaluation
//! and 0.5 KiB per level of [`check_schema`]; a `pattern` check adds one frame of about
//! 5 KiB for the compiled expression ([`regex`]). The frozen schemas nest at most five
//! levels (seven through `$ref`), so [`validate`] needs under 10 KiB; a hostile run-time
//! schema at
//! [`MAX_DEPTH`] about 25 KiB. The applicators each have their own small frame so that
//! only the one in use is on the recursion path.
//!
//! # Frozen schemas
//!
//! `core/build.rs` reads the vendored schema files at build time, drops pure annotations
//! (`description`, `title`, `examples`, ... in schema positions) and emits each as a
//! static JSON text plus the static node tape [`crate::json::parse`] would build for it.
//! Validation therefore needs no parsing and no scratch memory; the cost is read-only
//! data: about 2,700 nodes of 24 bytes plus 30 KiB of text (about 95 KiB in all). A test
//! re-parses every emitted text and requires an identical tape.
//!
//! ```
//! # fn main() -> Result<(), concordia_core::Error> {
//! use concordia_core::{json, schema};
//!
//! let mut nodes = [json::Node::EMPTY; 64];
//! let doc = json::parse(br#"{"type": "object", "required": ["max_spend"],
//!     "properties": {"max_spend": {"type": "number", "maximum": 1000}}}"#, &mut nodes)?;
//! let constraints = doc.root();
//! let mut nodes2 = [json::Node::EMPTY; 8];
//! let action = json::parse(br#"{"max_spend": 1200}"#, &mut nodes2)?;
//! assert_eq!(schema::validate_with(constraints, action.root()), Err(concordia_core::Error::Schema("maximum")));
//! # Ok(())
//! # }
//! ```

use crate::error::{Error, Limit, Result};
use crate::json::{Doc, Kind, Node, Str, Value};

mod meta;
pub mod regex;

/// Deepest nesting of subschema evaluation (including `$ref` hops).
pub const MAX_DEPTH: u32 = 32;
/// Most evaluation steps (subschemas entered, array pairs compared, patterns run) per call.
pub const MAX_STEPS: u32 = 1 << 20;

/// A frozen schema as emitted by `build.rs`.
struct Frozen {
    file: &'static str,
    id: Option<&'static str>,
    doc: Doc<'static>,
}

include!(concat!(env!("OUT_DIR"), "/frozen_schemas.rs"));

/// One of the 14 frozen schemas vendored under `conformance/vectors/schemas`.
#[non_exhaustive]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SchemaId {
    /// `approval_receipt.schema.json`
    ApprovalReceipt,
    /// `atomic_activation_proof.schema.json`
    AtomicActivationProof,
    /// `attestation.schema.json`
    Attestation,
    /// `cascade_decision_record.schema.json`
    CascadeDecisionRecord,
    /// `chain_session.schema.json`
    ChainSession,
    /// `closure_predicate.schema.json`
    ClosurePredicate,
    /// `conditional_commitment.schema.json`
    ConditionalCommitment,
    /// `fulfillment_attestation.schema.json`
    FulfillmentAttestation,
    /// `mandate.schema.json`
    Mandate,
    /// `predicate.json`
    Predicate,
    /// `receipt_bundle.schema.json`
    ReceiptBundle,
    /// `reference.schema.json`
    Reference,
    /// `revocation_record.schema.json`
    RevocationRecord,
    /// `unwind_record.schema.json`
    UnwindRecord,
}

impl SchemaId {
    /// Every frozen schema.
    pub const ALL: [SchemaId; 14] = [
        SchemaId::ApprovalReceipt,
        SchemaId::AtomicActivationProof,
        SchemaId::Attestation,
        SchemaId::CascadeDecisionRecord,
        SchemaId::ChainSession,
        SchemaId::ClosurePredicate,
        SchemaId::ConditionalCommitment,
        SchemaId::FulfillmentAttestation,
        SchemaId::Mandate,
        SchemaId::Predicate,
        SchemaId::ReceiptBundle,
        SchemaId::Reference,
        SchemaId::RevocationRecord,
        SchemaId::UnwindRecord,
    ];

    /// The schema's file name in the conformance suite.
    #[must_use]
    pub const fn file_name(self) -> &'static str {
        match self {
            SchemaId::ApprovalReceipt => "approval_receipt.schema.json",
            SchemaId::AtomicActivationProof => "atomic_activation_proof.schema.json",
            SchemaId::Attestation => "attestation.schema.json",
            SchemaId::CascadeDecisionRecord => "cascade_decision_record.schema.json",
            SchemaId::ChainSession => "chain_session.schema.json",
            SchemaId::ClosurePredicate => "closure_predicate.schema.json",
            SchemaId::ConditionalCommitment => "conditional_commitment.schema.json",
            SchemaId::FulfillmentAttestation => "fulfillment_attestation.schema.json",
            SchemaId::Mandate => "mandate.schema.json",
            SchemaId::Predicate => "predicate.json",
            SchemaId::ReceiptBundle => "receipt_bundle.schema.json",
            SchemaId::Reference => "reference.schema.json",
            SchemaId::RevocationRecord => "revocation_record.schema.json",
            SchemaId::UnwindRecord => "unwind_record.schema.json",
        }
    }

    /// The schema with this file name.
    #[must_use]
    pub fn from_file_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|id| id.file_name() == name)
    }
}

impl SchemaId {
    /// The frozen schema as a parsed value (annotation keywords removed).
    #[must_use]
    pub fn schema(self) -> Value<'static> {
        let doc = FROZEN.iter().find(|f| f.file == self.file_name()).map_or(EMPTY_SCHEMA, |f| f.doc);
        doc.root()
    }
}

static EMPTY_NODES: [Node; 1] = [Node::from_raw(Kind::False, 0, 0, 5, 0, 0, 0)];
/// Stands in for a missing frozen schema (cannot happen: a test checks the table); it is
/// the `false` schema, so nothing validates against it.
const EMPTY_SCHEMA: Doc<'static> = Doc::from_static_parts("false", &EMPTY_NODES);

/// Validates `value` against a frozen schema, asserting `format: "date-time"`.
///
/// # Errors
/// [`Error::Schema`] naming the first keyword that failed; [`Error::Limit`] when the
/// depth or step bound is exceeded.
pub fn validate(schema: SchemaId, value: Value<'_>) -> Result<()> {
    let root = schema.schema();
    Eval { steps: 0, formats: true }.eval(root, root, value, 0)
}

/// Validates `value` against a schema given at run time, as the reference runner's
/// `validate_action` does: [`check_schema`] first, then validation without format
/// assertions. `$ref` resolves inside `schema` and, by `$id`, to the frozen schemas.
///
/// # Errors
/// [`Error::Schema`] when the schema is invalid or unsupported, or the value does not
/// conform; [`Error::Limit`] when a bound is exceeded.
pub fn validate_with(schema: Value<'_>, value: Value<'_>) -> Result<()> {
    check_schema(schema)?;
    Eval { steps: 0, formats: false }.eval(schema, schema, value, 0)
}

/// Checks `schema` against the Draft 2020-12 meta-schema, as the reference runner's
/// `validate_json_schema_object` does (the schema must be an object). Keyword values must
/// have their meta-schema types (`type` a type name or a non-empty array of distinct type
/// names, `required` an array of distinct strings, `properties` an object of schemas,
/// `minimum` a number, `minLength` a non-negative integer, `pattern` a regular expression
/// [`regex`] supports, ...), recursively through every subschema.
///
/// # Errors
/// `Error::Schema("invalid schema")`, `Error::Schema("unsupported pattern")` /
/// `("invalid pattern")`, or [`Error::Limit`] beyond [`MAX_DEPTH`].
pub fn check_schema(schema: Value<'_>) -> Result<()> {
    if schema.kind() != Kind::Object {
        return Err(INVALID_SCHEMA);
    }
    meta::check(schema, 0)
}

const INVALID_SCHEMA: Error = Error::Schema("invalid schema");

/// The keyword name of a schema member, decoded when escaped; `""` when it is too long
/// to be a keyword.
fn keyword<'b>(k: &Str<'b>, buf: &'b mut [u8; 24]) -> &'b str {
    match k.as_plain() {
        Some(s) => s,
        None => k.decode_into(buf).unwrap_or(""),
    }
}

/// `jsonschema`'s `equal`: strings, numbers by value, `true != 1`, containers deeply.
fn json_equal(a: Value<'_>, b: Value<'_>) -> bool {
    a.equals(&b)
}

/// A finite double with no fractional part (every double of magnitude 2^52 or more is one).
pub(crate) fn is_integral(f: f64) -> bool {
    f.is_finite() && (f.abs() >= 4_503_599_627_370_496.0 || (f as i64) as f64 == f)
}

fn is_number(v: Value<'_>) -> bool {
    v.kind() == Kind::Number
}

fn type_matches(name: &Str<'_>, inst: Value<'_>) -> Option<bool> {
    let k = inst.kind();
    let hit = if name.eq_str("string") {
        k == Kind::String
    } else if name.eq_str("object") {
        k == Kind::Object
    } else if name.eq_str("array") {
        k == Kind::Array
    } else if name.eq_str("number") {
        k == Kind::Number
    } else if name.eq_str("integer") {
        inst.as_f64().is_some_and(is_integral)
    } else if name.eq_str("boolean") {
        matches!(k, Kind::True | Kind::False)
    } else if name.eq_str("null") {
        k == Kind::Null
    } else {
        return None;
    };
    Some(hit)
}

/// A non-negative integer keyword value (`3` or `3.0`), as `usize`.
fn count_value(v: Value<'_>) -> Result<usize> {
    match v.as_f64() {
        Some(f) if f >= 0.0 && is_integral(f) => Ok(if f > usize::MAX as f64 { usize::MAX } else { f as usize }),
        _ => Err(INVALID_SCHEMA),
    }
}

fn has_member(obj: Value<'_>, name: &Str<'_>) -> bool {
    obj.sorted_members().any(|(k, _)| k == *name)
}

fn member<'i>(obj: Value<'i>, name: &Str<'_>) -> Option<Value<'i>> {
    obj.sorted_members().find(|(k, _)| k == name).map(|(_, v)| v)
}

/// The member name of `value` (a member of an object) as a string value.
fn key_value<'i>(value: Value<'i>) -> Value<'i> {
    Value::new(value.doc(), value.index().saturating_sub(1))
}

struct Eval {
    steps: u32,
    formats: bool,
}

impl Eval {
    fn tick(&mut self) -> Result<()> {
        self.steps += 1;
        if self.steps > MAX_STEPS {
            return Err(Error::limit(Limit::Steps, 0));
        }
        Ok(())
    }

    /// Whether `inst` is valid against `schema`: `Ok(false)` for a validation failure,
    /// `Err` only for limits and broken schemas.
    fn is_valid<'s>(&mut self, root: Value<'s>, schema: Value<'s>, inst: Value<'_>, depth: u32) -> Result<bool> {
        match self.eval(root, schema, inst, depth) {
            Ok(()) => Ok(true),
            Err(e) if is_failure(&e) => Ok(false),
            Err(e) => Err(e),
        }
    }

    // Each arm reads "keyword: applies when the instance has the right kind"; as match
    // guards, inapplicable instances would fall through to the catch-all arm instead.
    #[allow(clippy::collapsible_match)]
    fn eval<'s>(&mut self, root: Value<'s>, schema: Value<'s>, inst: Value<'_>, depth: u32) -> Result<()> {
        if depth >= MAX_DEPTH {
            return Err(Error::limit(Limit::Depth, schema.offset()));
        }
        self.tick()?;
        match schema.kind() {
            Kind::True => return Ok(()),
            Kind::False => return Err(Error::Schema("false schema")),
            Kind::Object => {}
            _ => return Err(INVALID_SCHEMA),
        }
        let d = depth + 1;
        for (k, v) in schema.members() {
            let mut buf = [0u8; 24];
            let name = keyword(&k, &mut buf);
            match name {
                "type"
                | "enum"
                | "const"
                | "required"
                | "minProperties"
                | "maxProperties"
                | "dependentRequired"
                | "minItems"
                | "maxItems"
                | "uniqueItems"
                | "minLength"
                | "maxLength"
                | "pattern"
                | "format"
                | "minimum"
                | "maximum"
                | "exclusiveMinimum"
                | "exclusiveMaximum"
                | "multipleOf"
                | "unevaluatedProperties"
                | "unevaluatedItems"
                | "$dynamicRef"
                | "$recursiveRef" => self.assert_keyword(name, v, inst)?,
                "properties" => self.apply_properties(root, schema, v, inst, d)?,
                "patternProperties" => self.apply_patternproperties(root, schema, v, inst, d)?,
                "additionalProperties" => self.apply_additionalproperties(root, schema, v, inst, d)?,
                "propertyNames" => self.apply_propertynames(root, schema, v, inst, d)?,
                "dependentSchemas" => self.apply_dependentschemas(root, schema, v, inst, d)?,
                "prefixItems" => self.apply_prefixitems(root, schema, v, inst, d)?,
                "items" => self.apply_items(root, schema, v, inst, d)?,
                "contains" => self.apply_contains(root, schema, v, inst, d)?,
                "allOf" => self.apply_allof(root, schema, v, inst, d)?,
                "anyOf" => self.apply_anyof(root, schema, v, inst, d)?,
                "oneOf" => self.apply_oneof(root, schema, v, inst, d)?,
                "not" => self.apply_not(root, schema, v, inst, d)?,
                "if" => self.apply_if(root, schema, v, inst, d)?,
                "$ref" => self.apply_ref(root, schema, v, inst, d)?,
                _ => {}
            }
        }
        Ok(())
    }

    // The applicators, one frame each: only the one in use is on the recursion path.

    #[inline(never)]
    fn apply_properties<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if v.kind() != Kind::Object {
            return Err(INVALID_SCHEMA);
        }
        if inst.kind() == Kind::Object {
            for (name, sub) in v.members() {
                if let Some(iv) = member(inst, &name) {
                    self.eval(root, sub, iv, d)?;
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_patternproperties<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if v.kind() != Kind::Object {
            return Err(INVALID_SCHEMA);
        }
        if inst.kind() == Kind::Object {
            for (pat, sub) in v.members() {
                for (name, iv) in inst.members() {
                    if self.search(&pat, &name)? {
                        self.eval(root, sub, iv, d)?;
                    }
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_additionalproperties<'s>(
        &mut self,
        root: Value<'s>,
        schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if inst.kind() == Kind::Object {
            let props = schema.get("properties");
            let patterns = schema.get("patternProperties");
            for (name, iv) in inst.members() {
                if props.is_some_and(|p| has_member(p, &name)) {
                    continue;
                }
                if let Some(pp) = patterns {
                    let mut matched = false;
                    for (pat, _) in pp.members() {
                        if self.search(&pat, &name)? {
                            matched = true;
                            break;
                        }
                    }
                    if matched {
                        continue;
                    }
                }
                if v.kind() == Kind::False {
                    return Err(Error::Schema("additionalProperties"));
                }
                self.eval(root, v, iv, d)?;
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_propertynames<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if inst.kind() == Kind::Object {
            for (_, iv) in inst.members() {
                self.eval(root, v, key_value(iv), d)?;
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_dependentschemas<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if inst.kind() == Kind::Object {
            for (name, sub) in v.members() {
                if has_member(inst, &name) {
                    self.eval(root, sub, inst, d)?;
                }
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_prefixitems<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if inst.kind() == Kind::Array {
            for (sub, iv) in v.elements().zip(inst.elements()) {
                self.eval(root, sub, iv, d)?;
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_items<'s>(
        &mut self,
        root: Value<'s>,
        schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if inst.kind() == Kind::Array {
            let skip = schema.get("prefixItems").map_or(0, |p| p.len());
            for iv in inst.elements().skip(skip) {
                self.eval(root, v, iv, d)?;
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_contains<'s>(
        &mut self,
        root: Value<'s>,
        schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if inst.kind() == Kind::Array {
            let min = match schema.get("minContains") {
                Some(m) => count_value(m)?,
                None => 1,
            };
            let max = match schema.get("maxContains") {
                Some(m) => Some(count_value(m)?),
                None => None,
            };
            let mut n = 0usize;
            for iv in inst.elements() {
                if self.is_valid(root, v, iv, d)? {
                    n += 1;
                }
            }
            if n < min || max.is_some_and(|m| n > m) {
                return Err(Error::Schema("contains"));
            }
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_allof<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if v.kind() != Kind::Array {
            return Err(INVALID_SCHEMA);
        }
        for sub in v.elements() {
            self.eval(root, sub, inst, d)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_anyof<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if v.kind() != Kind::Array {
            return Err(INVALID_SCHEMA);
        }
        let mut any = false;
        for sub in v.elements() {
            if self.is_valid(root, sub, inst, d)? {
                any = true;
                break;
            }
        }
        if !any {
            return Err(Error::Schema("anyOf"));
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_oneof<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if v.kind() != Kind::Array {
            return Err(INVALID_SCHEMA);
        }
        let mut n = 0;
        for sub in v.elements() {
            if self.is_valid(root, sub, inst, d)? {
                n += 1;
                if n > 1 {
                    break;
                }
            }
        }
        if n != 1 {
            return Err(Error::Schema("oneOf"));
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_not<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        if self.is_valid(root, v, inst, d)? {
            return Err(Error::Schema("not"));
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_if<'s>(
        &mut self,
        root: Value<'s>,
        schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        let branch = if self.is_valid(root, v, inst, d)? { "then" } else { "else" };
        if let Some(sub) = schema.get(branch) {
            self.eval(root, sub, inst, d)?;
        }
        Ok(())
    }

    #[inline(never)]
    fn apply_ref<'s>(
        &mut self,
        root: Value<'s>,
        _schema: Value<'s>,
        v: Value<'s>,
        inst: Value<'_>,
        d: u32,
    ) -> Result<()> {
        let target = v.as_str().ok_or(INVALID_SCHEMA)?;
        let (new_root, sub) = resolve(root, &target)?;
        self.eval(new_root, sub, inst, d)?;
        Ok(())
    }

    /// The keywords that assert without applying subschemas, in their own frame: they
    /// are not on the recursion path, so their locals do not cost stack per level.
    #[inline(never)]
    #[allow(clippy::collapsible_match)]
    fn assert_keyword(&mut self, name: &str, v: Value<'_>, inst: Value<'_>) -> Result<()> {
        match name {
            "type" => self.check_type(v, inst)?,
            "enum" => {
                if v.kind() != Kind::Array {
                    return Err(INVALID_SCHEMA);
                }
                let mut found = false;
                for e in v.elements() {
                    self.tick()?;
                    if json_equal(e, inst) {
                        found = true;
                        break;
                    }
                }
                if !found {
                    return Err(Error::Schema("enum"));
                }
            }
            "const" => {
                if !json_equal(v, inst) {
                    return Err(Error::Schema("const"));
                }
            }
            "required" => {
                if v.kind() != Kind::Array {
                    return Err(INVALID_SCHEMA);
                }
                if inst.kind() == Kind::Object {
                    for r in v.elements() {
                        let name = r.as_str().ok_or(INVALID_SCHEMA)?;
                        if !has_member(inst, &name) {
                            return Err(Error::Schema("required"));
                        }
                    }
                }
            }
            "minProperties" => {
                if inst.kind() == Kind::Object && inst.len() < count_value(v)? {
                    return Err(Error::Schema("minProperties"));
                }
            }
            "maxProperties" => {
                if inst.kind() == Kind::Object && inst.len() > count_value(v)? {
                    return Err(Error::Schema("maxProperties"));
                }
            }
            "dependentRequired" => {
                if inst.kind() == Kind::Object {
                    for (name, deps) in v.members() {
                        if has_member(inst, &name) {
                            for r in deps.elements() {
                                let dep = r.as_str().ok_or(INVALID_SCHEMA)?;
                                if !has_member(inst, &dep) {
                                    return Err(Error::Schema("dependentRequired"));
                                }
                            }
                        }
                    }
                }
            }
            "minItems" => {
                if inst.kind() == Kind::Array && inst.len() < count_value(v)? {
                    return Err(Error::Schema("minItems"));
                }
            }
            "maxItems" => {
                if inst.kind() == Kind::Array && inst.len() > count_value(v)? {
                    return Err(Error::Schema("maxItems"));
                }
            }
            "uniqueItems" => {
                if v.kind() == Kind::True && inst.kind() == Kind::Array {
                    for (i, a) in inst.elements().enumerate() {
                        for b in inst.elements().skip(i + 1) {
                            self.tick()?;
                            if json_equal(a, b) {
                                return Err(Error::Schema("uniqueItems"));
                            }
                        }
                    }
                }
            }
            "minLength" => {
                if let Some(s) = inst.as_str() {
                    if s.chars().count() < count_value(v)? {
                        return Err(Error::Schema("minLength"));
                    }
                }
            }
            "maxLength" => {
                if let Some(s) = inst.as_str() {
                    if s.chars().count() > count_value(v)? {
                        return Err(Error::Schema("maxLength"));
                    }
                }
            }
            "pattern" => {
                if let Some(s) = inst.as_str() {
                    let pat = v.as_str().ok_or(INVALID_SCHEMA)?;
                    if !self.search(&pat, &s)? {
                        return Err(Error::Schema("pattern"));
                    }
                }
            }
            "format" => {
                if self.formats && v.is_str("date-time") {
                    if let Some(s) = inst.as_str() {
                        if !date_time(&s) {
                            return Err(Error::Schema("format"));
                        }
                    }
                }
            }
            "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum" | "multipleOf" => {
                let limit = v.as_f64().ok_or(INVALID_SCHEMA)?;
                if let (true, Some(x)) = (is_number(inst), inst.as_f64()) {
                    numeric(name, limit, x, v, inst)?;
                }
            }
            "unevaluatedProperties" | "unevaluatedItems" | "$dynamicRef" | "$recursiveRef" => {
                return Err(Error::Schema("unsupported keyword"));
            }
            _ => {}
        }
        Ok(())
    }

    fn check_type(&mut self, v: Value<'_>, inst: Value<'_>) -> Result<()> {
        let ok = match v.kind() {
            Kind::String => type_matches(&v.as_str().ok_or(INVALID_SCHEMA)?, inst).ok_or(INVALID_SCHEMA)?,
            Kind::Array => {
                let mut any = false;
                for t in v.elements() {
                    let name = t.as_str().ok_or(INVALID_SCHEMA)?;
                    if type_matches(&name, inst).ok_or(INVALID_SCHEMA)? {
                        any = true;
                    }
                }
                any
            }
            _ => return Err(INVALID_SCHEMA),
        };
        if ok {
            Ok(())
        } else {
            Err(Error::Schema("type"))
        }
    }

    /// `re.search(pattern, text)`, one step.
    fn search(&mut self, pattern: &Str<'_>, text: &Str<'_>) -> Result<bool> {
        self.tick()?;
        search_str(pattern, text)
    }
}

/// Whether an error means "the instance is invalid" (as opposed to a limit or a schema
/// this module cannot use, which must propagate through `not`, `anyOf`, ...).
fn is_failure(e: &Error) -> bool {
    match e {
        Error::Schema(what) => !matches!(
            *what,
            "invalid schema" | "unsupported keyword" | "unsupported pattern" | "invalid pattern" | "unresolvable $ref"
        ),
        _ => false,
    }
}

/// Compiles and runs a pattern in its own stack frame, so that the compiled expression
/// (about 4 KiB) is not part of every recursion level.
#[inline(never)]
fn search_str(pattern: &Str<'_>, text: &Str<'_>) -> Result<bool> {
    let mut buf = [0u8; 512];
    let pat = match pattern.as_plain() {
        Some(p) => p,
        None => pattern.decode_into(&mut buf).map_err(|_| Error::Schema("unsupported pattern"))?,
    };
    let re = regex::Regex::new(pat)?;
    Ok(re.search(text.chars()))
}

/// The contract's date-time assertion on a JSON string.
#[inline(never)]
fn date_time(s: &Str<'_>) -> bool {
    if let Some(plain) = s.as_plain() {
        return crate::time::is_date_time(plain);
    }
    let mut buf = [0u8; 256];
    match s.decode_into(&mut buf) {
        Ok(text) => crate::time::is_date_time(text),
        // Longer than any timestamp but one with hundreds of fraction digits.
        Err(_) => false,
    }
}

fn numeric(name: &str, limit: f64, x: f64, limit_value: Value<'_>, inst: Value<'_>) -> Result<()> {
    let ok = match name {
        "minimum" => x >= limit,
        "maximum" => x <= limit,
        "exclusiveMinimum" => x > limit,
        "exclusiveMaximum" => x < limit,
        _ => {
            if limit <= 0.0 {
                return Err(INVALID_SCHEMA);
            }
            multiple_of(x, limit, limit_value.is_integer_literal() && inst.is_integer_literal())
        }
    };
    if ok {
        Ok(())
    } else {
        Err(Error::Schema(match name {
            "minimum" => "minimum",
            "maximum" => "maximum",
            "exclusiveMinimum" => "exclusiveMinimum",
            "exclusiveMaximum" => "exclusiveMaximum",
            _ => "multipleOf",
        }))
    }
}

/// `jsonschema`'s `multipleOf`: integer remainder when both are Python ints, otherwise
/// `int(x / m) == x / m` (a quotient that overflows to infinity fails).
fn multiple_of(x: f64, m: f64, both_ints: bool) -> bool {
    if both_ints {
        return x % m == 0.0;
    }
    let q = x / m;
    is_integral(q)
}

/// Resolves a `$ref` against the current root: `#...` is a JSON pointer into the root;
/// `uri#...` names a frozen schema by its `$id`.
#[inline(never)]
fn resolve<'s>(root: Value<'s>, target: &Str<'_>) -> Result<(Value<'s>, Value<'s>)> {
    const UNRESOLVABLE: Error = Error::Schema("unresolvable $ref");
    let mut buf = [0u8; 256];
    let t = match target.as_plain() {
        Some(t) => t,
        None => target.decode_into(&mut buf).map_err(|_| UNRESOLVABLE)?,
    };
    let (base, fragment) = match t.find('#') {
        Some(i) => (t.get(..i).unwrap_or(""), t.get(i + 1..).unwrap_or("")),
        None => (t, ""),
    };
    let doc_root: Value<'s> = if base.is_empty() || root.get("$id").is_some_and(|id| id.is_str(base)) {
        root
    } else {
        FROZEN.iter().find(|f| f.id == Some(base)).map(|f| f.doc.root()).ok_or(UNRESOLVABLE)?
    };
    if fragment.is_empty() {
        return Ok((doc_root, doc_root));
    }
    if !fragment.starts_with('/') {
        // Anchors (`#name`) are not used by any Concordia schema.
        return Err(UNRESOLVABLE);
    }
    let mut pbuf = [0u8; 256];
    let pointer = percent_decode(fragment, &mut pbuf).ok_or(UNRESOLVABLE)?;
    let sub = doc_root.pointer(pointer).ok_or(UNRESOLVABLE)?;
    Ok((doc_root, sub))
}

/// URI fragments are percent-encoded; JSON pointers are not.
fn percent_decode<'b>(s: &'b str, buf: &'b mut [u8; 256]) -> Option<&'b str> {
    if !s.contains('%') {
        return Some(s);
    }
    let bytes = s.as_bytes();
    let mut n = 0;
    let mut i = 0;
    while i < bytes.len() {
        let b = match bytes.get(i)? {
            b'%' => {
                let hi = char::from(*bytes.get(i + 1)?).to_digit(16)?;
                let lo = char::from(*bytes.get(i + 2)?).to_digit(16)?;
                i += 3;
                (hi * 16 + lo) as u8
            }
            &b => {
                i += 1;
                b
            }
        };
        *buf.get_mut(n)? = b;
        n += 1;
    }
    core::str::from_utf8(buf.get(..n)?).ok()
}

#[cfg(test)]
mod tests;
