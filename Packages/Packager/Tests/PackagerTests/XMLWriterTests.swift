import Foundation
import Testing
import MediaDRMDASH
@testable import Packager

/// `MPDWriter` (MediaDRMDASH) escapes in one place and refuses what XML 1.0 cannot carry; `DASHSegmentTimeline`
/// folds equal contiguous segments into one `S` with `r`. Python's ElementTree is the
/// independent reader of the escaping.
@Suite struct XMLWriterTests {
    @Test func escapesTextAndAttributesSoAnXMLParserReadsThemBack() throws {
        let tricky = "a&b<c>\"d\" 'e'\tf\ng\rh ü"
        let document = try MPDWriter.document(MPDElement("Root", [("value", tricky)], children: [MPDElement("Child", text: tricky)]))
        #expect(document.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Root value=\"a&amp;b&lt;c&gt;&quot;d&quot; 'e'&#9;f&#10;g&#13;h ü\">"))
        let script = """
            import json, sys, xml.etree.ElementTree as ET
            root = ET.fromstring(sys.stdin.buffer.read())
            print(json.dumps([root.get("value"), root.find("Child").text]))
            """
        let r = try run(try IndependentTools.python(), ["-c", script], input: Data(document.utf8))
        try #require(r.status == 0, "\(r.stderr)")
        #expect(try JSONSerialization.jsonObject(with: r.stdout) as? [String] == [tricky, tricky])
    }

    @Test func refusesWhatXMLCannotCarry() {
        for text in ["nul\u{0}", "bell\u{7}", "\u{FFFE}"] {
            #expect(throws: MPDWriterError.self) { try MPDWriter.document(MPDElement("A", text: text)) }
            #expect(throws: MPDWriterError.self) { try MPDWriter.document(MPDElement("A", [("v", text)])) }
        }
        for name in ["", "1a", "a b", "a:b:c", "a:", "a\"", "<a"] {
            #expect(throws: MPDWriterError.self) { try MPDWriter.document(MPDElement(name)) }
            #expect(throws: MPDWriterError.self) { try MPDWriter.document(MPDElement("A", [(name, "v")])) }
        }
        #expect(throws: MPDWriterError.self) { try MPDWriter.document(MPDElement("A", children: [MPDElement("B")], text: "t")) }
    }

    @Test func timelineFoldsEqualContiguousSegments() {
        let s = DASHSegmentTimeline.entries([(0, 6), (6, 6), (12, 6), (18, 1), (20, 1)])
        #expect(s == [MPDElement("S", [("t", "0"), ("d", "6"), ("r", "2")]), MPDElement("S", [("t", "18"), ("d", "1")]),
                      MPDElement("S", [("t", "20"), ("d", "1")])])
    }
}
