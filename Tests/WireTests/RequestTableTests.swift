import FoundationEssentials
import HealthCodec
import Testing

@testable import HealthEngine
@testable import HealthModel
@testable import Wire

/// `RequestTable` and `ReplyTable` are the one definition of every request and reply: these tests check that their
/// rows are each other's strangers (each row's inverse takes apart only its own case), that every opcode and tag
/// maps to the row carrying it, that a row's decoder and encoder are inverse on the examples of every opcode (the
/// exact bytes are pinned by ``PinnedFrameTests``), and that names and log fields come from the rows.
@Suite("The request and reply tables")
struct RequestTableTests {
  @Test func everyOpcodeMapsToTheRowOfThatOpcode() {
    for opcode in RequestOpcode.allCases {
      #expect(opcode.definition.opcode == opcode, "\(opcode)")
    }
  }

  @Test func eachRowTakesApartOnlyItsOwnCase() {
    for request in PinnedFrameTests.requests {
      let matching = RequestOpcode.allCases.filter { $0.definition.matches(request) }
      #expect(matching == [request.opcode], "\(request.opcode) is matched by \(matching)")
    }
  }

  @Test func readingARowsFieldsGivesBackTheRequestItsWriterWasGiven() throws {
    for request in PinnedFrameTests.requests {
      var w = BinaryWriter()
      request.definition.writeFields(of: request, into: &w)
      let decoded = try Self.readWhole(w.bytes) { try request.definition.readFields(from: &$0) }
      #expect(decoded == request, "\(request.opcode)")
    }
  }

  @Test func theSpecializedCodecWritesAndReadsWhatTheRowsDefinitionDoes() throws {
    // The frame codec visits each row at its concrete type; its bytes and requests are the existential row's.
    for request in PinnedFrameTests.requests {
      var erased = BinaryWriter()
      request.definition.writeFields(of: request, into: &erased)
      var specialized = BinaryWriter()
      specialized.u8(0xEE)
      request.writeFields(into: &specialized)
      #expect(specialized.bytes == [0xEE] + erased.bytes, "\(request.opcode)")
      let decoded = try Self.readWhole(erased.bytes) { try request.opcode.readFields(from: &$0) }
      #expect(decoded == request, "\(request.opcode)")
    }
  }

  @Test func aCountTheRemainingBytesCannotHoldIsRefusedBeforeReading() throws {
    // `save` with a claimed 1,000 samples and no bytes for them: refused at the count, not by running out later.
    var w = BinaryWriter()
    w.u8(RequestOpcode.save.rawValue)
    w.string("com.example.water")
    w.u32(1000)
    let error = #expect(throws: DecodeError.self) {
      try w.bytes.withUnsafeBytes { buffer in
        var r = BinaryReader(buffer)
        return try r.request()
      }
    }
    #expect(error?.offset == 22)
    #expect(error?.message.contains("array count 1000") == true)
  }

  @Test func aRequestsNameAndCallLineComeFromItsRow() {
    #expect(Request.setLocked(true).name == "lock")
    #expect(Request.setLocked(false).name == "unlock")
    #expect(Request.storedSamples(type: nil, from: .start, limit: 0).name == "storedSamples")
    for request in PinnedFrameTests.requests where request.opcode != .setLocked {
      #expect(request.name == "\(request.opcode)")
    }
    let save = Request.save(bundleID: "a", samples: [])
    #expect(save.appCall == AppCall("a", [LogField("samples", "0")]))
    #expect(Request.ping.appCall == nil)
    #expect(Request.deleteMatching(bundleID: "a", type: water, range: nil).appCall == nil)
  }

  @Test func everyReplyTagMapsToTheRowOfThatTagWhichTakesApartOnlyItsOwnCase() {
    struct Tagging: ReplyDefinitionVisitor {
      let reply: Reply
      func visit<Payload: FieldCodec>(_ definition: ReplyDefinition<Payload>) -> (ReplyTag, Bool) {
        (definition.tag, definition.match(reply) != nil)
      }
    }
    for reply in PinnedFrameTests.replies {
      for tag in ReplyTag.allCases {
        var tagging = Tagging(reply: reply)
        let (rowTag, matches) = tag.visitDefinition(&tagging)
        #expect(rowTag == tag)
        #expect(matches == (tag == reply.tag), "\(tag)'s row matches \(reply.tag)")
      }
    }
  }

  @Test func aReplysLogFieldsComeFromItsRow() {
    #expect(Reply.samples([]).logFields == [LogField("results", "0")])
    #expect(Reply.ok.logFields == [])
    #expect(
      Reply.collection([], timeZone: "UTC").logFields == [LogField("buckets", "0"), LogField("zone", "UTC")])
  }

  /// What `read` takes from `bytes`, which it must read to the end.
  private static func readWhole(
    _ bytes: [UInt8], _ read: (inout BinaryReader) throws -> Request
  ) throws -> Request {
    try bytes.withUnsafeBytes { buffer in
      var r = BinaryReader(buffer)
      let request = try read(&r)
      try r.expectEnd("request fields")
      return request
    }
  }
}
