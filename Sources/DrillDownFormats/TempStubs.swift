import DrillDownCore
enum YAMLReader { static func read(_ b: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore { throw ParseFailure(offset: 0, "x") } }
enum XMLPropertyListReader { static func read(_ b: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore { throw ParseFailure(offset: 0, "x") } }
enum BinaryPropertyListReader { static func read(_ b: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore { throw ParseFailure(offset: 0, "x") } }
enum OpenStepReader { static func read(_ b: UnsafeBufferPointer<UInt8>) throws(ParseFailure) -> TreeStore { throw ParseFailure(offset: 0, "x") } }
enum YAMLWriter { static func data(_ t: TreeStore) throws(WriteFailure) -> [UInt8] { [] } }
enum XMLPropertyListWriter { static func data(_ t: TreeStore) throws(WriteFailure) -> [UInt8] { [] } }
enum BinaryPropertyListWriter { static func data(_ t: TreeStore) throws(WriteFailure) -> [UInt8] { [] } }
enum OpenStepWriter { static func data(_ t: TreeStore) throws(WriteFailure) -> [UInt8] { [] } }
