import EffectDiagnostics
import NewsApp
import ReactiveDiagnosticsTesting
import Testing

/// Swift Testing: the store's effects run through a diagnosed runner that knows results must
/// come back on the main queue.
@Suite(.diagnosed)
struct SettingsStoreTests {
    @MainActor
    @Test func appearingLoadsTheSettings() async {
        let store = Store(
            initial: SettingsFeature.State(), reducer: SettingsFeature.reducer(service: NewsService()),
            runEffect: { effect, send in
                DiagnosedEffect<SettingsFeature.Action>("load settings", effect.run).run(expecting: .mainQueue, send)
            })
        store.send(.appear)
        for _ in 0..<500 where store.state.settings == nil {
            try? await Task.sleep(for: .milliseconds(10))
        }
        #expect(store.state.settings == Settings(fontSize: 17, darkMode: true))
    }
}
