//! # concordia-conformance
//!
//! Runs the Concordia conformance suite (`conformance/vectors/`, vendored unmodified)
//! through [`concordia_core::profiles`], as `conformance/RUNNER_CONTRACT.md` specifies:
//! it reads `manifest.json`, loads every listed vector, rejects malformed vectors before
//! evaluation, dispatches only on `verification_profile`, and compares each verdict with
//! the vector's `expected`. The report ends with the reference runner's summary line,
//! `[SUMMARY] positive=.. mutation=.. canary=.. ok=.. fail=..`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use concordia_core::json::{self, Kind, Node, Value};
use concordia_core::profiles::{verify_profile, Profile, VerifyOptions};

/// The only vector format this runner reads.
pub const VECTOR_SCHEMA_VERSION: &str = "concordia-conformance-vector/v1-draft";

/// The `record_type` values the contract allows.
pub const RECORD_TYPES: [&str; 19] = [
    "decision_object",
    "approval_receipt",
    "revocation_record",
    "cascade_decision_record",
    "fulfillment_attestation",
    "attestation",
    "predicate",
    "mandate",
    "cosign_receipt",
    "conditional_commitment",
    "atomic_activation_proof",
    "unwind_record",
    "closure_predicate",
    "chain_session",
    "chain_session_transition",
    "agent_profile",
    "competence_proof",
    "receipt_bundle",
    "message_chain",
];

/// The allowed `expected_reason_class` values.
pub const REASON_CLASSES: [&str; 7] = ["schema", "signature", "digest", "binding", "temporal", "privacy", "transition"];

/// Fields every vector must carry.
pub const REQUIRED_FIELDS: [&str; 9] = [
    "schema_version",
    "id",
    "title",
    "source_fixture",
    "record_type",
    "verification_profile",
    "input",
    "context",
    "expected",
];

/// The three manifest sections, in run order.
pub const SECTIONS: [&str; 3] = ["positive", "mutation", "canary"];

pub use concordia_core::profiles::Regression;

/// How to run the suite.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunOptions {
    /// A deliberately weakened check (test-only; see [`active_regression`]).
    pub regression: Option<Regression>,
}

/// The verdict on one vector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct VectorResult {
    /// The vector id (or its manifest path when the id is unreadable).
    pub id: String,
    /// `positive`, `mutation` or `canary`.
    pub section: &'static str,
    /// The profile the vector named, when valid.
    pub profile: Option<&'static str>,
    /// The vector's `expected` (`accept`, `reject`, or a placeholder when unreadable).
    pub expected: String,
    /// `accept` or `reject`.
    pub got: &'static str,
    /// The reason class the core reported for a rejection (`malformed-vector` or `io` for
    /// vectors rejected before evaluation).
    pub reason_class: Option<&'static str>,
    /// A short description of why the core rejected it.
    pub reason: Option<String>,
    /// The vector's `expected_reason_class`, if any.
    pub expected_reason_class: Option<String>,
}

impl VectorResult {
    /// Whether the verdict matches `expected`.
    #[must_use]
    pub fn ok(&self) -> bool {
        self.expected == self.got
    }

    /// Whether this is a rejection whose class equals the vector's `expected_reason_class`.
    #[must_use]
    pub fn class_agrees(&self) -> bool {
        self.got == "reject"
            && self.expected_reason_class.is_some()
            && self.reason_class == self.expected_reason_class.as_deref()
    }
}

/// Counts over the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Positive vectors executed.
    pub positive: usize,
    /// Mutation vectors executed.
    pub mutation: usize,
    /// Canary vectors executed.
    pub canary: usize,
    /// Verdicts equal to `expected`.
    pub ok: usize,
    /// Verdicts different from `expected` (plus manifest-level failures).
    pub fail: usize,
    /// Rejections that carry an `expected_reason_class`.
    pub rejections_with_class: usize,
    /// Of those, rejections whose reported class equals it.
    pub class_agree: usize,
}

impl Summary {
    /// The reference runner's summary line.
    #[must_use]
    pub fn line(&self) -> String {
        format!(
            "[SUMMARY] positive={} mutation={} canary={} ok={} fail={}",
            self.positive, self.mutation, self.canary, self.ok, self.fail
        )
    }
}

/// The outcome of a suite run.
#[derive(Clone, Debug, Default)]
pub struct Report {
    /// One entry per vector, in manifest order.
    pub results: Vec<VectorResult>,
    /// Manifest-level problems (`[FAIL] manifest...` lines).
    pub manifest_failures: Vec<String>,
    /// The counts.
    pub summary: Summary,
}

impl Report {
    /// Whether every vector matched and at least one ran.
    #[must_use]
    pub fn passed(&self) -> bool {
        self.summary.fail == 0 && self.results.iter().any(|_| true)
    }

    /// The text report: a `[FAIL]` line per miss, then the summary line.
    #[must_use]
    pub fn text(&self) -> String {
        let mut out = String::new();
        for m in &self.manifest_failures {
            let _ = writeln!(out, "{m}");
        }
        for r in self.results.iter().filter(|r| !r.ok()) {
            let _ = writeln!(out, "[FAIL] {} expected={} got={}", r.id, r.expected, r.got);
        }
        let _ = writeln!(out, "{}", self.summary.line());
        if self.results.is_empty() {
            let _ = writeln!(out, "[FAIL] zero vectors executed");
        }
        out
    }

    /// The machine report: per-vector results and the summary, as one JSON object.
    #[must_use]
    pub fn json(&self) -> String {
        let mut out = String::from("{\"results\":[");
        for (i, r) in self.results.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"id\":");
            push_json_str(&mut out, &r.id);
            out.push_str(",\"section\":");
            push_json_str(&mut out, r.section);
            out.push_str(",\"profile\":");
            push_opt(&mut out, r.profile);
            out.push_str(",\"expected\":");
            push_json_str(&mut out, &r.expected);
            out.push_str(",\"got\":");
            push_json_str(&mut out, r.got);
            out.push_str(",\"ok\":");
            out.push_str(if r.ok() { "true" } else { "false" });
            out.push_str(",\"reason_class\":");
            push_opt(&mut out, r.reason_class);
            out.push_str(",\"reason\":");
            push_opt(&mut out, r.reason.as_deref());
            out.push_str(",\"expected_reason_class\":");
            push_opt(&mut out, r.expected_reason_class.as_deref());
            out.push_str(",\"class_agrees\":");
            out.push_str(if r.class_agrees() { "true" } else { "false" });
            out.push('}');
        }
        let s = &self.summary;
        let _ = write!(
            out,
            "],\"manifest_failures\":{},\"summary\":{{\"positive\":{},\"mutation\":{},\"canary\":{},\"ok\":{},\"fail\":{},\
             \"rejections_with_expected_reason_class\":{},\"reason_class_agree\":{},\"line\":",
            self.manifest_failures.len(),
            s.positive,
            s.mutation,
            s.canary,
            s.ok,
            s.fail,
            s.rejections_with_class,
            s.class_agree
        );
        push_json_str(&mut out, &s.line());
        out.push_str("}}\n");
        out
    }
}

fn push_opt(out: &mut String, s: Option<&str>) {
    match s {
        Some(s) => push_json_str(out, s),
        None => out.push_str("null"),
    }
}

fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// Reads the test-only regression switch exactly as the reference runner does:
/// `RUNNER_REGRESS` is honoured only with `CONCORDIA_CONFORMANCE_TEST_REGRESS=1`.
///
/// # Errors
/// A message when `RUNNER_REGRESS` is set without the test switch, names an unknown
/// regression, or this build has no regressions compiled in.
pub fn active_regression() -> Result<Option<Regression>, String> {
    let Ok(raw) = std::env::var("RUNNER_REGRESS") else { return Ok(None) };
    if std::env::var("CONCORDIA_CONFORMANCE_TEST_REGRESS").as_deref() != Ok("1") {
        return Err("RUNNER_REGRESS is test-only; set CONCORDIA_CONFORMANCE_TEST_REGRESS=1".into());
    }
    regression_from_name(&raw).map(Some)
}

/// The regression named by a `RUNNER_REGRESS` value.
///
/// # Errors
/// A message for an unknown name.
pub fn regression_from_name(raw: &str) -> Result<Regression, String> {
    Regression::from_name(raw).ok_or_else(|| format!("unknown RUNNER_REGRESS value: {raw}"))
}

/// The base directory that manifest paths are relative to: the repository root when
/// `dir` is `<root>/conformance/vectors`, else `dir` itself.
#[must_use]
pub fn suite_base(dir: &Path) -> PathBuf {
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_path_buf());
    let is_vectors = dir.file_name().is_some_and(|n| n == "vectors")
        && dir.parent().and_then(Path::file_name).is_some_and(|n| n == "conformance");
    match (is_vectors, dir.parent().and_then(Path::parent)) {
        (true, Some(base)) => base.to_path_buf(),
        _ => dir,
    }
}

/// The vendored suite of this repository (compiled-in path).
#[must_use]
pub fn vendored_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("vectors")
}

/// Runs the suite in `dir` (a `conformance/vectors` directory, or a `manifest.json`).
///
/// # Errors
/// A message when the manifest cannot be read or parsed at all, or a regression is
/// requested from a build without the core's test-only `__test-regressions-weakens-checks` feature.
pub fn run_suite(dir: &Path, options: &RunOptions) -> Result<Report, String> {
    if let Err(e) = verify_options(options) {
        return Err(format!("RUNNER_REGRESS: {e} (enable the test-only feature `__test-regressions-weakens-checks`)"));
    }
    let (manifest_path, base) = if dir.is_file() {
        let parent = dir.parent().unwrap_or(Path::new("."));
        (dir.to_path_buf(), suite_base(parent))
    } else {
        (dir.join("manifest.json"), suite_base(dir))
    };
    let manifest = std::fs::read(&manifest_path).map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let mut nodes: Vec<Node> = Vec::new();
    let need = manifest.len() / 2 + 2;
    nodes.resize(need, Node::EMPTY);
    let doc = json::parse(&manifest, &mut nodes).map_err(|e| format!("{}: {e}", manifest_path.display()))?;
    let mut report = Report::default();
    let root = doc.root();
    let files = root.get("files").filter(|f| f.kind() == Kind::Object);
    let Some(files) = files else {
        report.manifest_failures.push("[FAIL] manifest.files expected=object got=reject".into());
        report.summary.fail += 1;
        return Ok(report);
    };
    let mut vector_nodes: Vec<Node> = Vec::new();
    let mut buf = String::new();
    for section in SECTIONS {
        let Some(list) = files.get(section).filter(|l| l.kind() == Kind::Array) else {
            report.manifest_failures.push(format!("[FAIL] manifest.files.{section} expected=list got=reject"));
            report.summary.fail += 1;
            continue;
        };
        for entry in list.elements() {
            match section {
                "positive" => report.summary.positive += 1,
                "mutation" => report.summary.mutation += 1,
                _ => report.summary.canary += 1,
            }
            let result = run_entry(&base, section, entry, &mut vector_nodes, &mut buf, options);
            if result.ok() {
                report.summary.ok += 1;
            } else {
                report.summary.fail += 1;
            }
            if result.got == "reject" && result.expected_reason_class.is_some() {
                report.summary.rejections_with_class += 1;
                if result.class_agrees() {
                    report.summary.class_agree += 1;
                }
            }
            report.results.push(result);
        }
    }
    Ok(report)
}

fn run_entry(
    base: &Path,
    section: &'static str,
    entry: Value<'_>,
    nodes: &mut Vec<Node>,
    buf: &mut String,
    options: &RunOptions,
) -> VectorResult {
    let rel = decoded(entry);
    let mut result = VectorResult {
        id: rel.clone().unwrap_or_else(|| "<non-string manifest entry>".to_string()),
        section,
        profile: None,
        expected: "<unreadable>".into(),
        got: "reject",
        reason_class: Some("io"),
        reason: None,
        expected_reason_class: None,
    };
    let Some(rel) = rel else {
        result.reason = Some("manifest path is not a string".into());
        return result;
    };
    buf.clear();
    match std::fs::read_to_string(base.join(rel)) {
        Ok(text) => buf.push_str(&text),
        Err(e) => {
            result.reason = Some(format!("cannot read vector: {e}"));
            return result;
        }
    }
    let bytes = buf.as_bytes();
    let need = bytes.len() / 2 + 2;
    if nodes.len() < need {
        nodes.resize(need, Node::EMPTY);
    }
    let doc = match json::parse(bytes, nodes) {
        Ok(doc) => doc,
        Err(e) => {
            result.reason_class = Some("malformed-vector");
            result.reason = Some(format!("vector is not valid JSON: {e}"));
            return result;
        }
    };
    let vector = doc.root();
    // Decoded: an escaped spelling of an expectation is that expectation, never "absent".
    if let Some(id) = vector.get("id").and_then(decoded) {
        result.id = id;
        result.expected = match vector.get("expected") {
            Some(e) => decoded(e).unwrap_or_else(|| "<invalid>".to_string()),
            None => "<missing>".to_string(),
        };
    }
    result.expected_reason_class = vector.get("expected_reason_class").and_then(decoded);
    let (profile, input, context) = match check_shape(vector) {
        Ok(x) => x,
        Err(why) => {
            result.reason_class = Some("malformed-vector");
            result.reason = Some(why.into());
            return result;
        }
    };
    result.profile = Some(profile.name());
    match verify_options(options).and_then(|opts| verify_profile(profile, input, context, &opts)) {
        Ok(()) => {
            result.got = "accept";
            result.reason_class = None;
        }
        Err(e) => {
            result.reason_class = Some(e.class().as_str());
            result.reason = Some(e.to_string());
        }
    }
    result
}

fn verify_options(options: &RunOptions) -> Result<VerifyOptions, concordia_core::Error> {
    match options.regression {
        None => Ok(VerifyOptions::default()),
        Some(r) => VerifyOptions::default().with_regression(r),
    }
}

/// Rejects a malformed vector before any profile runs: required fields, schema version,
/// id, record type, known profile, expected outcome, object context, allowed reason class.
///
/// # Errors
/// Why the vector is malformed.
pub fn check_shape<'a>(vector: Value<'a>) -> Result<(Profile, Value<'a>, Value<'a>), &'static str> {
    if vector.kind() != Kind::Object {
        return Err("vector is not an object");
    }
    if REQUIRED_FIELDS.iter().any(|f| vector.get(f).is_none()) {
        return Err("vector is missing required fields");
    }
    let field = |f: &str| vector.get(f).ok_or("vector is missing required fields");
    if !field("schema_version")?.is_str(VECTOR_SCHEMA_VERSION) {
        return Err("vector schema_version is unsupported");
    }
    if field("id")?.as_str().is_none_or(|s| s.raw().is_empty()) {
        return Err("vector id is invalid");
    }
    let record_type = field("record_type")?;
    if !RECORD_TYPES.iter().any(|r| record_type.is_str(r)) {
        return Err("record_type is unsupported");
    }
    let profile = field("verification_profile")?
        .as_plain_str()
        .and_then(Profile::from_name)
        .ok_or("verification_profile is unsupported")?;
    let expected = field("expected")?;
    if !expected.is_str("accept") && !expected.is_str("reject") {
        return Err("expected outcome is invalid");
    }
    let context = field("context")?;
    if context.kind() != Kind::Object {
        return Err("context is not an object");
    }
    if let Some(class) = vector.get("expected_reason_class").filter(|c| !c.is_null()) {
        if !REASON_CLASSES.iter().any(|r| class.is_str(r)) {
            return Err("expected_reason_class is not an allowed class");
        }
    }
    Ok((profile, field("input")?, context))
}

/// The decoded value of a JSON string (escapes resolved), `None` for other values.
fn decoded(v: Value<'_>) -> Option<String> {
    v.as_str().map(|s| s.chars().collect())
}
