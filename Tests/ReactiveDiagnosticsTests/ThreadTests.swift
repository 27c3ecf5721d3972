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
        let info = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                Thread.current.name = "rd-worker"
                continuation.resume(returning: ThreadInfo.current)
            }
        }
        #expect(info.name == "rd-worker" && !info.isMainQueue && info.id > 0)
        #expect(info.description.contains("rd-worker"))
    }

    @Test func testIdentityResolvesThreadLocalThenTaskLocalThenSerial() {
        let task = TestIdentity(name: "ThreadTests.task")
        let thread = TestIdentity(name: "ThreadTests.thread")
        #expect(TestIdentity(name: "ThreadTests.task") == task)
        #expect(task.name == "ThreadTests.task" && TestIdentity.none.name == nil)
        TestIdentity.$current.withValue(task) {
            #expect(TestIdentity.resolve() == task)
            TestIdentity.withThreadTest(thread) {
                #expect(TestIdentity.resolve() == thread)
            }
            #expect(TestIdentity.resolve() == task)
        }
    }
}
