import Dispatch
import Foundation
import ReactiveDiagnostics
import Testing

@Suite("Threads and test identity")
struct ThreadTests {
    @Test func mainQueueIsTheQueueNotTheThread() async {
        let onMain = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(onMain)
        let onGlobal = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: MainQueue.isCurrent) }
        }
        #expect(!onGlobal)
    }

    @Test func threadInfoDescribesTheThread() async {
        // libdispatch names its worker threads; the kernel id is what gdb and ps show.
        let worker = await withCheckedContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(returning: ThreadInfo.current) }
        }
        #expect(worker.id > 0 && !worker.isMainQueue)
        #expect(worker.name?.isEmpty == false)
        #expect(worker.description == "thread \(worker.id) '\(worker.name ?? "")' (background)")
        let main = await withCheckedContinuation { continuation in
            DispatchQueue.main.async { continuation.resume(returning: ThreadInfo.current) }
        }
        #expect(main.isMainQueue && main.id != worker.id)
        #expect(main.description.hasSuffix("(main queue)"))
    }

    @Test func testIdentityResolvesThreadLocalThenTaskLocalThenSerial() {
        let task = TestIdentity(name: "ThreadTests.task")
        let thread = TestIdentity(name: "ThreadTests.thread")
        #expect(TestIdentity(name: "ThreadTests.task") == task)
        #expect(task.name == "ThreadTests.task" && TestIdentity.none.name == nil)
        TestIdentity.$current.withValue(task) {
            #expect(TestIdentity.contextual == task)
            TestIdentity.withThreadTest(thread) {
                #expect(TestIdentity.contextual == thread)
            }
            #expect(TestIdentity.contextual == task)
        }
    }
}
