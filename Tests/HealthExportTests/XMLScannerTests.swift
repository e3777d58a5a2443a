import FoundationEssentials
import Testing

@testable import HealthExport

/// Every tag of `text`: `<name attr=value …>`, `</name>`, `<name …/>`.
private func tags(_ text: String, chunk: Int = .max, bufferSize: Int = 1 << 20) throws(ExportError) -> [String] {
  var scanner = XMLScanner(MemoryInput(Array(text.utf8), chunk: chunk), file: "t.xml", bufferSize: bufferSize)
  var out: [String] = []
  while true {
    switch try scanner.next() {
    case .endOfDocument: return out
    case .endTag: out.append("</\(scanner.name)>")
    case .startTag:
      var tag = "<" + scanner.name
      for i in 0..<scanner.attributeCount { tag += " \(scanner.attributeName(i))=\(try scanner.string(i))" }
      out.append(tag + (scanner.isSelfClosing ? "/>" : ">"))
    }
  }
}

private func scanError(_ text: String, chunk: Int = .max) -> ExportError? {
  do {
    _ = try tags(text, chunk: chunk)
    Issue.record("expected an error for \(text)")
    return nil
  } catch { return error }
}

@Suite("XML scanner: well-formed exports")
struct XMLScannerTests {
  @Test func tagsAttributesAndNesting() throws {
    let text = """
      <?xml version="1.0" encoding="UTF-8"?>
      <a x="1" y='two'>
        <b/>
        <c z = "3" ></c>
      </a>
      """
    #expect(try tags(text) == ["<a x=1 y=two>", "<b/>", "<c z=3>", "</c>", "</a>"])
  }

  @Test func entitiesAndCharacterReferencesAreDecoded() throws {
    let text = #"<a v="&lt;&gt;&amp;&quot;&apos; &#65;&#x42;&#8217; caf&#xE9;"/>"#
    #expect(try tags(text) == ["<a v=<>&\"' AB’ café/>"])
  }

  @Test func literalWhitespaceInAttributesIsNormalizedAndReferencesAreKept() throws {
    #expect(try tags("<a v=\"x\ty\nz&#10;w\"/>") == ["<a v=x y z\nw/>"])
  }

  @Test func commentsProcessingInstructionsCDATAAndTheDTDAreSkipped() throws {
    let text = """
      \u{FEFF}<?xml version="1.0"?>
      <!DOCTYPE HealthData [
      <!-- a comment with ] and > and a "quote -->
      <!ELEMENT HealthData (Record*)>
      <!ATTLIST Record type CDATA #REQUIRED note CDATA "a > b ]">
      ]>
      <!-- before the root -->
      <HealthData><?pi data?><![CDATA[ <not> a </tag> ]]>text<Record type="t"/></HealthData>
      <!-- after the root -->

      """
    #expect(try tags(text) == ["<HealthData>", "<Record type=t/>", "</HealthData>"])
  }

  @Test func everyChunkSizeGivesTheSameTokens() throws {
    let text = try String(decoding: bytes(of: fixturePath), as: UTF8.self)
    let whole = try tags(text)
    #expect(whole.count > 60)
    for chunk in [1, 7, 64, 4096] {
      #expect(try tags(text, chunk: chunk) == whole, "chunk \(chunk)")
    }
    // A buffer smaller than the DTD grows to hold it.
    #expect(try tags(text, chunk: 3, bufferSize: 64) == whole)
  }

  @Test func locationsCountLinesColumnsInBytesAndOffsets() throws {
    let text = "<a>\n  <b/>\n  <c x=\"’\"/><d/>\n</a>"
    var scanner = XMLScanner(MemoryInput(Array(text.utf8)), file: "t.xml")
    var seen: [String: ExportLocation] = [:]
    while try scanner.next() != .endOfDocument {
      if scanner.token == .startTag { seen[scanner.name] = scanner.tokenLocation }
    }
    #expect(seen["a"] == ExportLocation(file: "t.xml", line: 1, column: 1, offset: 0))
    #expect(seen["b"] == ExportLocation(file: "t.xml", line: 2, column: 3, offset: 6))
    #expect(seen["c"] == ExportLocation(file: "t.xml", line: 3, column: 3, offset: 13))
    // The ’ takes three bytes: <d/> starts at byte column 15.
    #expect(seen["d"] == ExportLocation(file: "t.xml", line: 3, column: 15, offset: 25))
  }
}

@Suite("XML scanner: malformed input is a located error")
struct XMLScannerErrorTests {
  @Test func mismatchedEndTagNamesBothTags() throws {
    let error = try #require(scanError("<a>\n <b>\n </c>\n</a>"))
    #expect(error.kind == .malformedXML)
    #expect(error.location.line == 3 && error.location.column == 2 && error.location.offset == 10)
    #expect(error.message.contains("'</c>' does not match '<b>' opened at line 2, column 2"))
    #expect(error.description.hasPrefix("t.xml:3:2: error: end tag"))
    #expect(error.description.hasSuffix("(byte offset 10)"))
  }

  @Test func unclosedElementsAtTheEndOfTheFile() throws {
    let error = try #require(scanError("<a>\n<b>\n"))
    #expect(error.message.contains("'<b>' opened at line 2, column 1 is not closed"))
    #expect(error.location.offset == 8)
  }

  @Test func badEntitiesQuotesNamesAndDuplicates() throws {
    #expect(scanError(#"<a v="&nbsp;"/>"#)?.message.contains("unknown entity '&nbsp;'") == true)
    #expect(scanError(#"<a v="&#0;"/>"#)?.message.contains("unknown entity") == true)
    #expect(scanError(#"<a v="AT&T"/>"#)?.message.contains("'&' must start an entity") == true)
    #expect(scanError(#"<a v=1/>"#)?.message.contains("quoted attribute value") == true)
    #expect(scanError(#"<a v="<"/>"#)?.message.contains("'<' is not allowed") == true)
    #expect(scanError(#"<a v="1" v="2"/>"#)?.message.contains("appears twice") == true)
    #expect(scanError(#"<a v="1"w="2"/>"#)?.message.contains("whitespace before an attribute") == true)
    #expect(scanError("<1a/>")?.message.contains("element name") == true)
    let column = scanError(#"<a b="x" c="&bogus;"/>"#)?.location.column
    #expect(column == 13)
  }

  @Test func oneRootElementAndNoStrayText() throws {
    #expect(scanError("<a/><b/>")?.message.contains("a second root element") == true)
    #expect(scanError("hello <a/>")?.message.contains("text before the root element") == true)
    #expect(scanError("<a/> trailing")?.message.contains("text after the root element") == true)
    #expect(scanError("")?.message.contains("no root element") == true)
    #expect(scanError("<!-- only a comment -->")?.message.contains("no root element") == true)
  }

  @Test func truncatedMarkupAtEveryChunkSize() throws {
    for chunk in [1, 5, .max] {
      #expect(scanError("<a><b x=\"1", chunk: chunk)?.message.contains("end of file inside markup") == true)
      #expect(scanError("<a><!-- never closed", chunk: chunk)?.message.contains("end of file") == true)
    }
  }
}
