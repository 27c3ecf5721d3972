import ReactiveDiagnostics
import Testing
import Foundation

@Test func smoke() {
    let engine = DiagnosticsEngine()
    let stack = engine.captureStack()
    #expect(stack.isCaptured)
    let sym = engine.symbolize(stack)
    FileHandle.standardError.write(Data("dropped \(sym.droppedFrames)\n".utf8))
    for f in sym.frames { FileHandle.standardError.write(Data("\(f.category) [\(f.module ?? "-")] \(f.displayName) | \(f.imagePath ?? "") \(f.imageOffset.map{String($0,radix:16)} ?? "")\n".utf8)) }
    let raw = Symbolizer.shared.symbolize(engine.stacks.addresses(of: stack))
    for f in raw.prefix(4) { FileHandle.standardError.write(Data("RAW \(f.category) [\(f.module ?? "-")] \(f.symbol ?? "")\n".utf8)) }
}
