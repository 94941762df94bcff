// XCTest mirror of ffi-uniffi/tests/test_uniffi_python.py (which CI runs through UniFFI's
// Python backend, since no Swift toolchain runs there). Run on a Mac after
// bindings-swift/build-xcframework.sh with `CONCORDIA_LOCAL_XCFRAMEWORK=1 swift test` at the
// repository root (Package.swift), or in Xcode.
//
// Fixtures/demo holds the output of
//   concordia demo --seed 000102...1f --now 2026-01-02T03:04:05Z
// (tools/ci/uniffi.sh checks it still equals what the CLI writes). The conformance test reads
// the vectors of the repository checkout (../conformance/vectors) and is skipped when the
// package is used outside it.

import CryptoKit
import Foundation
import XCTest

import Concordia

private let seed = Data(0..<32)
private let start = Date(timeIntervalSince1970: 1_767_323_045)  // 2026-01-02T03:04:05Z
private let seller = "did:concordia:agent:camera-seller"
private let buyer = "did:concordia:agent:camera-buyer"
private let genesis = "sha256:" + String(repeating: "0", count: 64)

// RFC 8032 §7.1, TEST 1.
private let rfcSeed = Data(hex: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
private let rfcPublic = Data(hex: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
private let rfcSignature = Data(
    hex: "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        + "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")

extension Data {
    init(hex: String) {
        var bytes = [UInt8]()
        var i = hex.startIndex
        while i < hex.endIndex {
            let j = hex.index(i, offsetBy: 2)
            bytes.append(UInt8(hex[i..<j], radix: 16)!)
            i = j
        }
        self.init(bytes)
    }

    var hex: String { map { String(format: "%02x", $0) }.joined() }
}

private func sha256Hex(_ data: Data) -> String { Data(SHA256.hash(data: data)).hex }

/// The demo's derivation (cli/src/demo.rs): SHA-256(seed || label).
private func derive(_ label: String) -> Data { Data(SHA256.hash(data: seed + Data(label.utf8))) }

private func demoKeyPair(_ label: String) throws -> KeyPair { try KeyPair.fromSeed(seed: derive(label)) }

/// When the demo applied message `step` (0-based): 45 s apart after the start.
private func at(_ step: Int) -> Date { start.addingTimeInterval(TimeInterval(45 * (step + 1))) }

private func b64url(_ data: Data) -> String {
    data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
}

private struct Demo {
    let transcript: String
    let messages: [String]
    let keys: String
    let attestation: String

    static func load() throws -> Demo {
        func read(_ name: String) throws -> String {
            let url = try XCTUnwrap(Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures/demo"))
            return try String(contentsOf: url, encoding: .utf8)
        }
        let transcript = try read("transcript")
        let messages = transcript.split(separator: "\n").map(String.init)
            .filter { $0 != "[" && $0 != "]" }
            .map { $0.hasSuffix(",") ? String($0.dropLast()) : $0 }
        return Demo(transcript: transcript, messages: messages, keys: try read("keys"), attestation: try read("attestation"))
    }
}

private func json(_ text: String) throws -> [String: Any] {
    try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
}

private func text(_ object: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.fragmentsAllowed]), as: UTF8.self)
}

/// Asserts that `body` throws an error equal to one built by `variant` (any message).
private func assertThrows<E: Error & Equatable>(
    _ variant: (String) -> E, _ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line
) {
    do {
        try body()
        XCTFail("did not throw", file: file, line: line)
    } catch let e as E {
        let message = String(describing: e)
        // Flat errors: compare the case, not the message.
        XCTAssertEqual(caseName(e), caseName(variant(message)), message, file: file, line: line)
    } catch {
        XCTFail("unexpected error \(error)", file: file, line: line)
    }
}

private func caseName<E>(_ e: E) -> String {
    String(String(describing: e).prefix { $0 != "(" })
}

final class JsonTests: XCTestCase {
    func testVersion() { XCTAssertEqual(version(), "0.1.0") }

    func testCanonicalizeAndHash() throws {
        XCTAssertEqual(try canonicalize(json: #"{"b": 1.50, "a": [true, "\u00e9"], "c": 1e2}"#), #"{"a":[true,"é"],"b":1.5,"c":100}"#)
        XCTAssertEqual(
            try canonicalize(json: #"{"\u20ac": 1, "\r": 2, "\ud83d\ude00": 3, "1": 4}"#), #"{"\r":2,"1":4,"€":1,"😀":3}"#)
        let t = #"{"z": 1, "a": {"y": null}}"#
        XCTAssertEqual(try hash(json: t), "sha256:" + sha256Hex(Data(try canonicalize(json: t).utf8)))
    }

    func testJsonErrorVariants() {
        assertThrows(JsonError.Syntax) { _ = try canonicalize(json: #"{"a":1,"a":2}"#) }
        assertThrows(JsonError.Syntax) { _ = try hash(json: "-0") }
        assertThrows(JsonError.Limit) {
            _ = try canonicalize(json: String(repeating: "[", count: 1000) + String(repeating: "]", count: 1000))
        }
    }
}

final class KeyTests: XCTestCase {
    func testFromSeedRfc8032() throws {
        let kp = try KeyPair.fromSeed(seed: rfcSeed)
        XCTAssertEqual(kp.publicKey(), rfcPublic)
        XCTAssertEqual(kp.publicKeyB64url(), b64url(rfcPublic))
        XCTAssertEqual(kp.seed(), rfcSeed)
        XCTAssertEqual(kp.sign(message: Data()), rfcSignature)
        try verifyDetached(publicKey: kp.publicKeyB64url(), message: Data(), signature: rfcSignature)
    }

    func testGenerate() throws {
        let a = try KeyPair.generate(), b = try KeyPair.generate()
        XCTAssertNotEqual(a.seed(), b.seed())
        XCTAssertEqual(try KeyPair.fromSeed(seed: a.seed()).publicKey(), a.publicKey())
        let sig = a.sign(message: Data("hello".utf8))
        try verifyDetached(publicKey: a.publicKeyB64url(), message: Data("hello".utf8), signature: sig)
        assertThrows(SignatureError.InvalidSignature) {
            try verifyDetached(publicKey: b.publicKeyB64url(), message: Data("hello".utf8), signature: sig)
        }
    }

    func testSignObjectAndVerify() throws {
        let kp = try KeyPair.fromSeed(seed: rfcSeed)
        let signed = try kp.signObject(json: #"{"b": 2, "a": 1, "signature": "old"}"#)
        XCTAssertTrue(signed.hasPrefix(#"{"a":1,"b":2,"signature":""#))
        for key in [kp.publicKeyB64url(), String(kp.publicKeyB64url().dropLast()), rfcPublic.base64EncodedString()] {
            try verifySignature(json: signed, publicKey: key)
        }
        XCTAssertEqual(try publicKeyToB64url(publicKey: rfcPublic.base64EncodedString()), kp.publicKeyB64url())
    }

    func testSignatureErrorVariants() throws {
        let kp = try KeyPair.fromSeed(seed: rfcSeed)
        let signed = try kp.signObject(json: #"{"a": 1}"#)
        assertThrows(SignatureError.InvalidSignature) {
            try verifySignature(json: signed.replacingOccurrences(of: #""a":1"#, with: #""a":2"#), publicKey: kp.publicKeyB64url())
        }
        assertThrows(SignatureError.Encoding) { try verifySignature(json: signed, publicKey: "not base64!") }
        assertThrows(SignatureError.Encoding) {
            try verifyDetached(publicKey: kp.publicKeyB64url(), message: Data(), signature: Data([1, 2]))
        }
        assertThrows(SignatureError.Schema) { try verifySignature(json: #"{"a": 1}"#, publicKey: kp.publicKeyB64url()) }
        assertThrows(SignatureError.Json) { _ = try kp.signObject(json: #"{"a": "#) }
        assertThrows(SignatureError.InvalidArgument) { _ = try KeyPair.fromSeed(seed: Data(count: 31)) }
        // Raised only when the OS generator fails, which a test cannot cause.
        XCTAssertEqual(SignatureError.Randomness(message: "x").errorDescription?.isEmpty, false)
    }

    func testSignEnvelopeReproducesDemoMessage() throws {
        let demo = try Demo.load()
        let first = try json(demo.messages[0])
        let from = try XCTUnwrap(first["from"] as? [String: Any])
        let to = try XCTUnwrap(first["to"] as? [[String: Any]])
        let env = Envelope(
            messageType: first["type"] as! String, id: first["id"] as! String, sessionId: first["session_id"] as! String,
            timestamp: first["timestamp"] as! String, from: Party(agentId: from["agent_id"] as! String),
            bodyJson: try text(first["body"]!), to: to.map { Party(agentId: $0["agent_id"] as! String) },
            reasoning: first["reasoning"] as? String)
        XCTAssertEqual(try demoKeyPair("seller").signEnvelope(envelope: env), demo.messages[0])
        var bad = env
        bad.prevHash = "sha256:xyz"
        assertThrows(SignatureError.Encoding) { _ = try demoKeyPair("seller").signEnvelope(envelope: bad) }
        bad = env
        bad.ttl = 1 << 60
        assertThrows(SignatureError.InvalidArgument) { _ = try demoKeyPair("seller").signEnvelope(envelope: bad) }
    }
}

final class ProtocolTests: XCTestCase {
    func testConformanceSuiteThroughVerifyProfile() throws {
        XCTAssertEqual(profileNames().count, 22)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../..").standardized
        let manifestURL = root.appendingPathComponent("conformance/vectors/manifest.json")
        guard FileManager.default.fileExists(atPath: manifestURL.path) else {
            throw XCTSkip("conformance vectors not found next to the package")
        }
        let manifest = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: manifestURL)) as? [String: Any])
        let files = try XCTUnwrap(manifest["files"] as? [String: [String]])
        var counts = [String: Int](), ok = 0, fail = 0, digestRejections = 0
        for section in ["positive", "mutation", "canary"] {
            for rel in files[section] ?? [] {
                counts[section, default: 0] += 1
                let v = try json(String(contentsOf: root.appendingPathComponent(rel), encoding: .utf8))
                var got = "accept"
                do {
                    try verifyProfile(
                        profile: v["verification_profile"] as! String, inputJson: try text(v["input"]!),
                        contextJson: try text(v["context"]!))
                } catch let e as ProtocolError {
                    got = "reject"
                    if case .Digest = e { digestRejections += 1 }  // the Digest variant
                }
                if got == v["expected"] as? String { ok += 1 } else { fail += 1; print("[FAIL] \(v["id"]!) got=\(got)") }
            }
        }
        let line = "[SUMMARY] positive=\(counts["positive"] ?? 0) mutation=\(counts["mutation"] ?? 0) canary=\(counts["canary"] ?? 0) ok=\(ok) fail=\(fail)"
        print(line)
        XCTAssertEqual(line, "[SUMMARY] positive=53 mutation=1488 canary=5 ok=1546 fail=0")
        XCTAssertGreaterThan(digestRejections, 0)
    }

    func testProtocolErrorVariants() throws {
        let demo = try Demo.load()
        assertThrows(ProtocolError.Input) { try verifyProfile(profile: "no-such-profile-v1", inputJson: "{}", contextJson: "{}") }
        let s = try Session(id: "ses_limit", createdAt: start)
        for i in 0..<8 { try s.addParty(agentId: "agent-\(i)", role: .witness) }
        assertThrows(ProtocolError.Limit) { try s.addParty(agentId: "agent-8", role: .witness) }
        assertThrows(ProtocolError.Schema) { _ = try TranscriptVerifier(keysJson: demo.keys).push(messageJson: "{}") }
        assertThrows(ProtocolError.Signature) {
            _ = try TranscriptVerifier(keysJson: demo.keys).push(
                messageJson: demo.messages[0].replacingOccurrences(of: "2200", with: "2100"))
        }
        assertThrows(ProtocolError.Binding) { _ = try TranscriptVerifier(keysJson: demo.keys).push(messageJson: demo.messages[1]) }
        let sid = try json(demo.messages[0])["session_id"] as! String
        let late = try Session(id: sid, createdAt: start)
        assertThrows(ProtocolError.Temporal) {
            _ = try late.apply(messageJson: demo.messages[0], now: start.addingTimeInterval(2 * 86400), keysJson: demo.keys)
        }
        _ = try late.apply(messageJson: demo.messages[0], now: at(0), keysJson: demo.keys)
        let params = AttestationParams(attestationId: "att_1", now: at(1), validity: .relative(from: at(1), durationSeconds: 60))
        assertThrows(ProtocolError.Transition) { _ = try generateAttestation(session: late, params: params, signers: []) }
    }

    func testTranscriptVerifierOnDemo() throws {
        let demo = try Demo.load()
        let att = try json(demo.attestation)
        let v = try TranscriptVerifier(keysJson: demo.keys)
        XCTAssertEqual(v.count(), 0)
        XCTAssertEqual(v.head(), genesis)
        let hashes = try demo.messages.map { try v.push(messageJson: $0) }
        XCTAssertEqual(hashes, try demo.messages.map { try hash(json: $0) })
        XCTAssertEqual(v.count(), 6)
        XCTAssertEqual(v.head(), att["chain_head"] as? String)
        XCTAssertEqual(try verifyTranscript(transcriptJson: demo.transcript, keysJson: demo.keys),
                       TranscriptSummary(count: 6, head: att["chain_head"] as! String))
    }

    private func replay(_ demo: Demo, registerKeys: Bool) throws -> (Session, [SessionState]) {
        let sid = try json(demo.messages[0])["session_id"] as! String
        let s = try Session(id: sid, createdAt: start, timing: Timing())
        let sellerKey = try demoKeyPair("seller").publicKeyB64url(), buyerKey = try demoKeyPair("buyer").publicKeyB64url()
        try s.addParty(agentId: seller, role: .initiator, publicKey: registerKeys ? sellerKey : nil)
        try s.addParty(agentId: buyer, role: .responder, publicKey: registerKeys ? buyerKey : nil)
        let states = try demo.messages.enumerated().map { i, m in
            try s.apply(messageJson: m, now: at(i), keysJson: registerKeys ? nil : demo.keys)
        }
        return (s, states)
    }

    func testSessionReplaysDemo() throws {
        let demo = try Demo.load()
        let att = try json(demo.attestation)
        for register in [true, false] {
            let (s, states) = try replay(demo, registerKeys: register)
            XCTAssertEqual(states, [.proposed, .active, .active, .active, .active, .agreed])
            XCTAssertEqual(s.state(), .agreed)
            XCTAssertEqual(s.roundCount(), 3)
            XCTAssertEqual(s.messageCount(), 6)
            XCTAssertEqual(s.tip(), att["chain_head"] as? String)
            XCTAssertEqual(s.createdAt(), start)
            XCTAssertEqual(s.concludedAt(), at(5))
            XCTAssertEqual(s.parties().map(\.role), [.initiator, .responder])
            XCTAssertEqual(s.parties().map(\.offersMade), [2, 1])
        }
    }

    func testSessionExpireAndDormant() throws {
        let s = try Session(id: "ses_exp", createdAt: start)
        try s.expire(now: start.addingTimeInterval(2 * 86400))
        XCTAssertEqual(s.state(), .expired)
        try s.makeDormant()
        XCTAssertEqual(s.state(), .dormant)
        XCTAssertTrue(s.isReactivatable())
        assertThrows(ProtocolError.Transition) { try s.expire(now: start) }
    }

    func testGenerateAttestationMatchesCli() throws {
        let demo = try Demo.load()
        let (s, _) = try replay(demo, registerKeys: true)
        let end = start.addingTimeInterval(45 * 7)
        var params = AttestationParams(
            attestationId: "att_" + derive("attestation").prefix(4).hex, now: end,
            validity: .absolute(from: end, until: end.addingTimeInterval(90 * 86400)), resolutionMechanism: "direct",
            category: "electronics.cameras", valueRange: "1000-5000_USD")
        let sellerKeys = try demoKeyPair("seller"), buyerKeys = try demoKeyPair("buyer")
        let signers = [Signer(agentId: seller, keyPair: sellerKeys), Signer(agentId: buyer, keyPair: buyerKeys)]
        let att = try generateAttestation(session: s, params: params, signers: signers)
        XCTAssertEqual(att + "\n", demo.attestation)
        XCTAssertEqual(try verifyAttestation(attestationJson: att, keysJson: demo.keys, transcriptJson: demo.transcript),
                       AttestationVerified(parties: 2, countersignatures: 2, binding: .bound))
        XCTAssertEqual(try verifyAttestation(attestationJson: att, keysJson: demo.keys).binding, .unchecked)
        params.attestationId = "att $2050"
        assertThrows(ProtocolError.Privacy) { _ = try generateAttestation(session: s, params: params, signers: signers) }
    }
}

final class ConsensusTests: XCTestCase {
    private let id = "3f2b8c1e-5d4a-4e7b-9c2f-1a2b3c4d5e6f"
    private let secret = "6_asp1MbRl66oRMolZ2m4ep4Q3azK7nvIuj-2X7NjlA"

    private func email(invite: String? = nil, href: String? = nil) -> String {
        let invite = invite ?? "https://consensus.md/i/\(id)#secret=\(secret)"
        let href = href ?? "https://consensus.md/api/v1/agent/invitations/\(id)/exchange"
        return """
            Hello agent,\r\n\r\n---BEGIN CONSENSUS INVITATION V1---\r\n{"schema": "https://consensus.md/schemas/invitation-email/v1", \
            "invitation_id": "\(id)", "invite_uri": "\(invite)", "agent_exchange": {"method": "POST", "href": "\(href)"}, \
            "agent_claim": {"email_proof": "ep_private_proof_123", "meaning": "A private proof."}}\r\n\
            ---END CONSENSUS INVITATION V1---\r\n
            """
    }

    func testDigests() throws {
        let rev = #"{"title": "Lease", "clauses": [{"n": 1, "text": "Rent 1200"}], "revision": 3}"#
        let d = try consensusRevisionDigest(canonicalRevisionJson: rev)
        XCTAssertEqual(d, sha256Hex(Data(try canonicalize(json: rev).utf8)))
        XCTAssertEqual(try consensusVerifyRevision(canonicalRevisionJson: rev, expected: "sha256:" + d), d)
        let md = "# Agreement\r\n\nRent: 1200\n"
        XCTAssertEqual(consensusMarkdownDigest(markdown: md), sha256Hex(Data(md.utf8)))
        XCTAssertEqual(try consensusVerifyMarkdown(markdown: md, expected: sha256Hex(Data(md.utf8))), sha256Hex(Data(md.utf8)))
        assertThrows(ConsensusError.Digest) { _ = try consensusVerifyRevision(canonicalRevisionJson: rev, expected: String(repeating: "0", count: 64)) }
        assertThrows(ConsensusError.Input) { _ = try consensusVerifyMarkdown(markdown: md, expected: "xyz") }
    }

    func testInvitation() throws {
        let s = try consensusParseInvitation(email: email())
        XCTAssertTrue(s.valid)
        XCTAssertEqual(s.invitationId, id)
        XCTAssertFalse(String(describing: s).contains(secret))
        XCTAssertEqual(try consensusValidateInvitation(email: email(), origin: "https://consensus.md"), s)
        assertThrows(ConsensusError.Binding) {
            _ = try consensusValidateInvitation(email: email(invite: "http://consensus.md/i/\(id)#secret=\(secret)"))
        }
        assertThrows(ConsensusError.Privacy) {
            _ = try consensusValidateInvitation(email: email(href: "https://consensus.md/api/v1/agent/invitations/\(id)/exchange?x=1"))
        }
        assertThrows(ConsensusError.Input) { _ = try consensusValidateInvitation(email: email(invite: "https://consensus.md/i/\(id)#secret=a")) }
        assertThrows(ConsensusError.Schema) { _ = try consensusParseInvitation(email: "no invitation here") }
        assertThrows(ConsensusError.Limit) { _ = try consensusParseInvitation(email: String(repeating: "x", count: 256 * 1024 + 1)) }
    }

    func testCommands() throws {
        let d = sha256Hex(Data("# Agreement\n".utf8))
        let agree = try consensusBuildCommand(action: .agree, body: "", revision: 1, digest: d)
        XCTAssertEqual(agree.wireBody, #"{"action":"agree","body":"","digest":"\#(d)","revision":1}"#)
        XCTAssertTrue(agree.idempotencyKey.hasPrefix("cns1:"))
        XCTAssertEqual(try consensusBuildCommand(action: .agree, body: "", revision: 1, digest: "sha256:" + d), agree)
        XCTAssertEqual(try consensusParseCommand(wireJson: agree.wireBody), agree)
        assertThrows(ConsensusError.Schema) { _ = try consensusBuildCommand(action: .agree, body: "yes", revision: 1, digest: d) }
        assertThrows(ConsensusError.Input) { _ = try consensusBuildCommand(action: .comment, body: "x", revision: 1, digest: "abc") }
    }

    func testArtifact() throws {
        let body = Data("# CONSENSUS\n\nReached on revision 3.\n".utf8)
        let digest = Data(SHA256.hash(data: body))
        let field = "sha-256=:" + digest.base64EncodedString() + ":"
        XCTAssertEqual(try consensusVerifyArtifact(bytes: body, contentDigest: field, xConsensusSha256: digest.hex, outcome: .reached), digest.hex)
        assertThrows(ConsensusError.Transition) {
            _ = try consensusVerifyArtifact(bytes: body, contentDigest: field, xConsensusSha256: digest.hex, outcome: .pending)
        }
        assertThrows(ConsensusError.Digest) {
            _ = try consensusVerifyArtifact(bytes: body + Data(" ".utf8), contentDigest: field, xConsensusSha256: digest.hex, outcome: .reached)
        }
    }
}

// MARK: - AIP

private let aliceDid = "did:aip:aigentix.org:alice"
private let bobDid = "did:aip:etagi.ru:bob"
private let aipCreated = "2026-05-10T14:25:00Z"
private let aipNow = Date(timeIntervalSince1970: 1_778_423_100)  // 2026-05-10T14:25:00Z
private let replayFrom = "did:aip:aigentix.org:alice"
// RFC 7748 §6.1: Alice's X25519 private and public keys.
private let rfc7748Secret = Data(hex: "77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")
private let rfc7748Public = Data(hex: "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
private let uuidV4 = "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"

private func aipKeys(_ label: String) throws -> AipKeyPair {
    try AipKeyPair.fromSeeds(ed25519Seed: derive("aip-ed25519-" + label), x25519Secret: derive("aip-x25519-" + label))
}

/// JSON text without escaped slashes (DID Document endpoints must be written without
/// JSON escapes).
private func plainJSON(_ object: Any) throws -> String {
    String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]), as: UTF8.self)
}

private func didDoc(
    _ did: String, _ kp: AipKeyPair, routeMode: String = "relay", endpoint: String? = nil, extra: [String: Any] = [:]
) throws -> String {
    let parts = did.split(separator: ":").map(String.init)
    var doc: [String: Any] = [
        "@context": ["https://www.w3.org/ns/did/v1"],
        "id": did,
        "route_mode": routeMode,
        "endpoint": endpoint ?? "https://hub.\(parts[2])/relay/\(parts[3])",
        "verificationMethod": [
            ["id": did + "#key-1", "type": "Multikey", "controller": did, "publicKeyMultibase": kp.ed25519Multibase()]
        ],
        "keyAgreement": [
            ["id": did + "#x25519-1", "type": "Multikey", "controller": did, "publicKeyMultibase": kp.x25519Multibase()]
        ],
    ]
    doc.merge(extra) { _, new in new }
    return try plainJSON(doc)
}

private func sealHeader(
    id: String? = nil, from: String = aliceDid, messageType: String = "aip.commerce.offer.request", createdAt: String = aipCreated
) throws -> AipSealHeader {
    AipSealHeader(id: try id ?? aipNewMessageId(), from: from, messageType: messageType, createdAt: createdAt)
}

/// Re-signs a (tampered) envelope as its sender would: Ed25519 over the canonical envelope
/// without `sig`, unpadded base64url.
private func resign(_ envelope: [String: Any], _ signer: KeyPair) throws -> String {
    var unsigned = envelope
    unsigned.removeValue(forKey: "sig")
    let sig = signer.sign(message: Data(try canonicalize(json: try plainJSON(unsigned)).utf8))
    unsigned["sig"] = b64url(sig).replacingOccurrences(of: "=", with: "")
    return try plainJSON(unsigned)
}

private func credential(_ issuer: String) throws -> String {
    try plainJSON([
        "@context": ["https://www.w3.org/ns/credentials/v2"],
        "id": "urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33",
        "type": ["VerifiableCredential", "AgentMembershipCredential"],
        "issuer": issuer,
        "validFrom": "2026-01-01T00:00:00Z",
        "validUntil": "2099-01-01T00:00:00Z",
        "credentialSubject": ["id": aliceDid, "memberOf": "aigentix.org"],
    ] as [String: Any])
}

private final class Box<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

final class AipTests: XCTestCase {
    func testHandles() throws {
        let h = try aipParseHandle(text: "alice#aigentix.org")
        XCTAssertEqual(
            h,
            AipHandle(
                name: "alice", domain: "aigentix.org", handle: "alice#aigentix.org", urlForm: "alice%23aigentix.org",
                atForm: "@alice@aigentix.org", did: aliceDid))
        for spelling in ["alice%23aigentix.org", "%61lice%23aigentix%2Eorg", "@alice@aigentix.org", aliceDid] {
            XCTAssertEqual(try aipParseHandle(text: spelling), h)
        }
        XCTAssertEqual(try aipHandle(name: "alice", domain: "aigentix.org"), h)
        for bad in ["Alice#aigentix.org", "alice#localhost", "alice", "did:aip:x.org", "alice%2zaigentix.org"] {
            assertThrows(AipError.Input) { _ = try aipParseHandle(text: bad) }
        }
        assertThrows(AipError.Input) { _ = try aipHandle(name: "", domain: "aigentix.org") }
    }

    func testKeyPair() throws {
        let kp = try aipKeys("alice")
        XCTAssertEqual(kp.ed25519Seed(), derive("aip-ed25519-alice"))
        XCTAssertEqual(kp.x25519Secret(), derive("aip-x25519-alice"))
        XCTAssertTrue(kp.ed25519Multibase().hasPrefix("z6Mk"))
        XCTAssertTrue(kp.x25519Multibase().hasPrefix("z6LS"))
        XCTAssertEqual(kp.didKey(), "did:key:" + kp.ed25519Multibase())
        XCTAssertEqual(kp.signingKey().publicKey(), kp.ed25519PublicKey())
        XCTAssertEqual(aipDidKey(keyPair: kp.signingKey()), kp.didKey())
        XCTAssertEqual(try AipKeyPair.fromSeeds(ed25519Seed: seed, x25519Secret: rfc7748Secret).x25519PublicKey(), rfc7748Public)
        // CryptoKit derives the same public keys.
        XCTAssertEqual(
            try Curve25519.KeyAgreement.PrivateKey(rawRepresentation: kp.x25519Secret()).publicKey.rawRepresentation,
            kp.x25519PublicKey())
        XCTAssertEqual(
            try Curve25519.Signing.PrivateKey(rawRepresentation: kp.ed25519Seed()).publicKey.rawRepresentation,
            kp.ed25519PublicKey())
        let a = try AipKeyPair.generate(), b = try AipKeyPair.generate()
        XCTAssertNotEqual(a.ed25519Seed(), b.ed25519Seed())
        XCTAssertNotEqual(a.x25519Secret(), b.x25519Secret())
        assertThrows(AipError.Input) { _ = try AipKeyPair.fromSeeds(ed25519Seed: Data(count: 31), x25519Secret: Data(count: 32)) }
        // Raised only when the OS generator fails, which a test cannot cause.
        XCTAssertEqual(AipError.Randomness(message: "x").errorDescription?.isEmpty, false)
    }

    /// Mirrors test_aip_keypair_did_document: the core writes the subset it reads.
    func testKeyPairDidDocument() throws {
        let kp = try aipKeys("bob")
        for (mode, endpoint) in [(AipRouteMode.relay, "https://hub.etagi.ru/relay/bob"), (.direct, "wss://bob.etagi.ru/aip")] {
            let text = try kp.didDocument(did: bobDid, routeMode: mode, endpoint: endpoint)
            XCTAssertTrue(text.hasPrefix("{\"endpoint\":\"\(endpoint)\",\"id\":\"\(bobDid)\",\"keyAgreement\":"))
            let doc = try aipParseDidDocument(didDocumentJson: text)
            XCTAssertEqual(doc.routeMode, mode)
            XCTAssertEqual(doc.endpoint, endpoint)
            XCTAssertEqual(doc.signingKeys, [kp.ed25519PublicKey()])
            XCTAssertEqual(doc.agreementKeys, [kp.x25519PublicKey()])
        }
        assertThrows(AipError.Schema) { _ = try kp.didDocument(did: bobDid, routeMode: .direct, endpoint: "ftp://etagi.ru/bob") }
        assertThrows(AipError.Input) { _ = try kp.didDocument(did: "did:web:etagi.ru", routeMode: .relay, endpoint: "https://hub.etagi.ru/relay/bob") }
    }

    func testDidDocumentAndRoute() throws {
        let kp = try aipKeys("bob")
        let relay = try didDoc(bobDid, kp)
        XCTAssertEqual(
            try aipParseDidDocument(didDocumentJson: relay),
            AipDidDocument(
                id: bobDid, subject: try aipParseHandle(text: "bob#etagi.ru"), routeMode: .relay,
                endpoint: "https://hub.etagi.ru/relay/bob", signingKeys: [kp.ed25519PublicKey()],
                agreementKeys: [kp.x25519PublicKey()]))
        let direct = try didDoc(bobDid, kp, routeMode: "direct", endpoint: "https://bob.etagi.ru/aip")
        XCTAssertEqual(try aipParseDidDocument(didDocumentJson: direct).routeMode, .direct)
        XCTAssertEqual(try aipSelectRoute(didDocumentJson: relay, endpointReachable: true), .relay(endpoint: "https://hub.etagi.ru/relay/bob"))
        XCTAssertEqual(try aipSelectRoute(didDocumentJson: direct, endpointReachable: true), .direct(endpoint: "https://bob.etagi.ru/aip"))
        XCTAssertEqual(try aipSelectRoute(didDocumentJson: direct, endpointReachable: false), .relay(endpoint: nil))
        assertThrows(AipError.Schema) { _ = try aipParseDidDocument(didDocumentJson: try didDoc(bobDid, kp, routeMode: "carrier-pigeon")) }
        assertThrows(AipError.Schema) {
            _ = try aipParseDidDocument(didDocumentJson: try didDoc(bobDid, kp, extra: ["verificationMethod": [Any]()]))
        }
        let five = (0..<5).map { ["id": "\(bobDid)#key-\($0)", "controller": bobDid, "type": "Multikey", "publicKeyMultibase": kp.ed25519Multibase()] }
        assertThrows(AipError.Limit) { _ = try aipParseDidDocument(didDocumentJson: try didDoc(bobDid, kp, extra: ["verificationMethod": five])) }
        assertThrows(AipError.Input) { _ = try aipParseDidDocument(didDocumentJson: try didDoc(bobDid, kp, extra: ["id": "did:web:etagi.ru"])) }
        assertThrows(AipError.Input) { _ = try aipParseDidDocument(didDocumentJson: #"{"id": "#) }
    }

    func testSealOpenRoundTrip() throws {
        let alice = try aipKeys("alice"), bob = try aipKeys("bob")
        let aliceDoc = try didDoc(aliceDid, alice), bobDoc = try didDoc(bobDid, bob)
        let body = #"{"sku": "cam-1", "qty": 2, "price": {"amount": 1.50, "currency": "EUR"}}"#
        let header = try sealHeader()
        XCTAssertNotNil(header.id.range(of: uuidV4, options: .regularExpression))
        let env = try aipSeal(sender: alice, recipientDidDocumentJson: bobDoc, header: header, bodyJson: body)
        XCTAssertEqual(env, try canonicalize(json: env))
        let expected = AipHeader(id: header.id, from: aliceDid, to: bobDid, messageType: header.messageType, createdAt: aipCreated)
        XCTAssertEqual(try aipParseEnvelope(envelopeJson: env), expected)
        XCTAssertEqual(try aipVerifyEnvelope(senderDidDocumentJson: aliceDoc, envelopeJson: env), expected)
        XCTAssertEqual(
            try aipOpen(recipient: bob, senderDidDocumentJson: aliceDoc, envelopeJson: env, now: aipNow, recipientDid: bobDid),
            AipOpened(header: expected, bodyJson: try canonicalize(json: body)))
        // Fresh ephemeral key material each time.
        let again = try aipSeal(sender: alice, recipientDidDocumentJson: bobDoc, header: header, bodyJson: body)
        XCTAssertNotEqual(again, env)
        XCTAssertEqual(try aipOpen(recipient: bob, senderDidDocumentJson: aliceDoc, envelopeJson: again, now: aipNow, recipientDid: bobDid).bodyJson, try canonicalize(json: body))
    }

    func testTamperedEnvelopes() throws {
        let alice = try aipKeys("alice"), bob = try aipKeys("bob"), eve = try aipKeys("eve")
        let aliceDoc = try didDoc(aliceDid, alice), bobDoc = try didDoc(bobDid, bob)
        let env = try aipSeal(sender: alice, recipientDidDocumentJson: bobDoc, header: try sealHeader(), bodyJson: #"{"offer": 2200}"#)
        let obj = try json(env)
        let eb = try XCTUnwrap(obj["encrypted_body"] as? String)
        let i = eb.index(eb.startIndex, offsetBy: 10)
        var flipped = obj
        flipped["encrypted_body"] = String(eb[..<i]) + (eb[i] == "A" ? "B" : "A") + String(eb[eb.index(after: i)...])
        var retyped = obj
        retyped["type"] = "aip.commerce.offer.accept"
        for tampered in [flipped, retyped] {
            let text = try plainJSON(tampered)
            assertThrows(AipError.Signature) { _ = try aipOpen(recipient: bob, senderDidDocumentJson: aliceDoc, envelopeJson: text, now: aipNow, recipientDid: bobDid) }
            assertThrows(AipError.Signature) { _ = try aipVerifyEnvelope(senderDidDocumentJson: aliceDoc, envelopeJson: text) }
        }
        // Re-signed by the sender with another header: the body is bound to its header.
        let moved = try resign(retyped, alice.signingKey())
        _ = try aipVerifyEnvelope(senderDidDocumentJson: aliceDoc, envelopeJson: moved)
        assertThrows(AipError.Signature) { _ = try aipOpen(recipient: bob, senderDidDocumentJson: aliceDoc, envelopeJson: moved, now: aipNow, recipientDid: bobDid) }
        assertThrows(AipError.Signature) { _ = try aipOpen(recipient: eve, senderDidDocumentJson: aliceDoc, envelopeJson: env, now: aipNow, anyRecipient: true) }
        assertThrows(AipError.Signature) {
            _ = try aipOpen(recipient: bob, senderDidDocumentJson: aliceDoc, envelopeJson: try resign(obj, eve.signingKey()), now: aipNow, recipientDid: bobDid)
        }
        assertThrows(AipError.Binding) { _ = try aipOpen(recipient: bob, senderDidDocumentJson: bobDoc, envelopeJson: env, now: aipNow, recipientDid: bobDid) }
        assertThrows(AipError.Schema) { _ = try aipParseEnvelope(envelopeJson: "{}") }
        assertThrows(AipError.Schema) {
            _ = try aipSeal(sender: alice, recipientDidDocumentJson: bobDoc, header: try sealHeader(id: "not-a-uuid"), bodyJson: "{}")
        }
        assertThrows(AipError.Schema) {
            _ = try aipSeal(sender: alice, recipientDidDocumentJson: try didDoc(bobDid, bob, extra: ["keyAgreement": [Any]()]),
                            header: try sealHeader(), bodyJson: "{}")
        }
        assertThrows(AipError.Input) {
            _ = try aipSeal(sender: alice, recipientDidDocumentJson: bobDoc, header: try sealHeader(from: "alice#aigentix.org"), bodyJson: "{}")
        }
    }

    func testReplayWindow() throws {
        let w = try AipReplayWindow(capacity: .small)
        XCTAssertEqual(w.capacity(), 1024)
        XCTAssertTrue(w.isEmpty())
        let a = try aipNewMessageId()
        XCTAssertEqual(try w.check(from: replayFrom, id: a, createdAt: aipCreated, now: aipNow), .fresh)
        XCTAssertEqual(try w.check(from: replayFrom, id: a, createdAt: aipCreated, now: aipNow.addingTimeInterval(5)), .duplicate)
        XCTAssertTrue(try w.contains(from: replayFrom, id: a))
        XCTAssertEqual(w.len(), 1)
        assertThrows(AipError.Temporal) {
            _ = try w.check(from: replayFrom, id: try aipNewMessageId(), createdAt: "2026-05-10T14:30:06Z", now: aipNow.addingTimeInterval(5))
        }
        assertThrows(AipError.Temporal) { _ = try w.check(from: replayFrom, id: a, createdAt: aipCreated, now: aipNow.addingTimeInterval(601)) }
        // A refused check changes nothing, its clock included; the next accepted one evicts.
        XCTAssertTrue(try w.contains(from: replayFrom, id: a))
        XCTAssertEqual(try w.check(from: replayFrom, id: try aipNewMessageId(), createdAt: "2026-05-10T14:30:00Z", now: aipNow.addingTimeInterval(601)), .fresh)
        XCTAssertFalse(try w.contains(from: replayFrom, id: a))
        assertThrows(AipError.Schema) { _ = try w.contains(from: replayFrom, id: "not-a-uuid") }
        let full = try AipReplayWindow(capacity: .small)
        for n in 0..<1024 {
            let hex = String(n, radix: 16)
            let id = "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - hex.count) + hex
            XCTAssertEqual(try full.check(from: replayFrom, id: id, createdAt: aipCreated, now: aipNow), .fresh)
        }
        assertThrows(AipError.Limit) { _ = try full.check(from: replayFrom, id: try aipNewMessageId(), createdAt: aipCreated, now: aipNow) }
    }

    func testReplayWindowSnapshotRestoreAndColdStart() throws {
        let w = try AipReplayWindow(capacity: .small)
        let a = try aipNewMessageId()
        XCTAssertEqual(try w.check(from: replayFrom, id: a, createdAt: aipCreated, now: aipNow), .fresh)
        let snap = try w.snapshot()
        let r = try AipReplayWindow(capacity: .small)
        try r.restore(snapshot: snap, now: aipNow)
        XCTAssertEqual(try r.check(from: replayFrom, id: a, createdAt: aipCreated, now: aipNow), .duplicate)
        XCTAssertFalse(r.isColdStarted())
        // A truncated snapshot is refused and the window starts cold.
        let cold = try AipReplayWindow(capacity: .small)
        assertThrows(AipError.Input) { try cold.restore(snapshot: snap.dropLast(), now: aipNow) }
        XCTAssertTrue(cold.isColdStarted())
        assertThrows(AipError.Temporal) { _ = try cold.check(from: replayFrom, id: a, createdAt: aipCreated, now: aipNow) }
        cold.endColdStart()
        XCTAssertEqual(try cold.check(from: replayFrom, id: a, createdAt: aipCreated, now: aipNow), .fresh)
    }

    /// The large windows are allocated in place, never on the caller's stack: a thread with a
    /// 256 KiB stack can create the 3 MiB window.
    func testReplayWindowOnSmallStack() {
        let capacities = Box([UInt64]())
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            for capacity in [AipReplayCapacity.medium, .large] {
                if let w = try? AipReplayWindow(capacity: capacity) { capacities.value.append(w.capacity()) }
            }
            done.signal()
        }
        thread.stackSize = 256 * 1024
        thread.start()
        done.wait()
        XCTAssertEqual(capacities.value, [16384, 65536])
    }

    func testVerifiableCredentials() throws {
        let issuer = try aipKeys("registry").signingKey()
        let did = aipDidKey(keyPair: issuer)
        let signed = try aipVcIssue(keyPair: issuer, credentialJson: try credential(did), created: "2026-01-01T00:00:00Z")
        let proof = try XCTUnwrap(try json(signed)["proof"] as? [String: Any])
        XCTAssertEqual(proof["cryptosuite"] as? String, "eddsa-jcs-2022")
        let verified = AipVerifiedCredential(issuer: did, subject: aliceDid, publicKey: issuer.publicKey())
        XCTAssertEqual(try aipVcVerify(credentialJson: signed, anchors: [did], revoked: [], now: aipNow), verified)
        XCTAssertEqual(try aipVcVerify(credentialJson: signed), verified)
        let other = aipDidKey(keyPair: try aipKeys("other").signingKey())
        assertThrows(AipError.Binding) { _ = try aipVcVerify(credentialJson: signed, anchors: [other]) }
        assertThrows(AipError.Binding) {
            _ = try aipVcVerify(credentialJson: signed, revoked: ["urn:uuid:58172aac-d8ba-11ed-83dd-0b3aef56cc33"])
        }
        assertThrows(AipError.Temporal) {
            _ = try aipVcVerify(credentialJson: signed, now: Date(timeIntervalSince1970: 4_070_908_801))  // 2099-01-01T00:00:01Z
        }
        var tampered = try json(signed)
        tampered["credentialSubject"] = ["id": bobDid, "memberOf": "aigentix.org"]
        assertThrows(AipError.Signature) { _ = try aipVcVerify(credentialJson: try plainJSON(tampered)) }
        assertThrows(AipError.Schema) { _ = try aipVcVerify(credentialJson: try credential(did)) }
        assertThrows(AipError.Input) { _ = try aipVcIssue(keyPair: issuer, credentialJson: try credential(other)) }
    }

    func testTrustAndRanking() throws {
        let anchor = "did:aip:aigentix.org:registry", broker = "did:aip:aigentix.org:broker"
        let edges = [AipCredentialEdge(issuer: anchor, subject: broker), AipCredentialEdge(issuer: broker, subject: aliceDid)]
        XCTAssertEqual(try aipTrustCeiling(subject: anchor, edges: edges, anchors: [anchor]), 1.0)
        XCTAssertEqual(try aipTrustCeiling(subject: broker, edges: edges, anchors: [anchor]), 0.5)
        XCTAssertEqual(try aipTrustCeiling(subject: aliceDid, edges: edges, anchors: [anchor]), 0.25)
        let revoked = [edges[0], AipCredentialEdge(issuer: broker, subject: aliceDid, revoked: true)]
        XCTAssertEqual(try aipTrustCeiling(subject: aliceDid, edges: revoked, anchors: [anchor]), 0.0)
        let tooMany = Array(repeating: edges, count: 129).flatMap { $0 }
        assertThrows(AipError.Limit) { _ = try aipTrustCeiling(subject: aliceDid, edges: tooMany, anchors: [anchor]) }
        XCTAssertEqual(aipTrustUpdate(score: 0, ceiling: 0.5, event: .success), 0.025, accuracy: 1e-12)
        XCTAssertEqual(aipTrustUpdate(score: 0.4, ceiling: 0.5, event: .failure), 0.2, accuracy: 1e-12)
        XCTAssertEqual(aipTrustUpdate(score: 0.4, ceiling: 0.5, event: .revocation), 0)
        XCTAssertEqual(aipTrustScore(ceiling: 0.5, history: [.success, .success, .failure]), (0.025 + 0.05 * 0.475) * 0.5, accuracy: 1e-12)
        XCTAssertEqual(try aipRrf(semanticRank: 1, ftsRank: 1), 2.0 / 61, accuracy: 1e-12)
        XCTAssertEqual(try aipRrf(ftsRank: 3), 1.0 / 63, accuracy: 1e-12)
        XCTAssertEqual(try aipFinalScore(rrf: 2.0 / 61, trustScore: 0.5), 2.0 / 61 * 1.15, accuracy: 1e-12)
        assertThrows(AipError.Input) { _ = try aipRrf(semanticRank: 0, ftsRank: 1) }
        assertThrows(AipError.Input) { _ = try aipFinalScore(rrf: 0.1, trustScore: 1.5) }
        let ranked = try aipRank(candidates: [
            AipCandidate(semanticRank: 2, ftsRank: nil, trustScore: 0),
            AipCandidate(semanticRank: 1, ftsRank: 1, trustScore: 0),
            AipCandidate(semanticRank: 2, ftsRank: nil, trustScore: 1),
            AipCandidate(semanticRank: nil, ftsRank: nil, trustScore: 0.5),
        ])
        XCTAssertEqual(ranked.map(\.index), [1, 2, 0, 3])
        XCTAssertEqual(ranked[1].finalScore, 1.0 / 62 * 1.3, accuracy: 1e-12)
    }
}
