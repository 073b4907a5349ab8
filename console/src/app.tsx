export function App() {
  return (
    <main>
      <h1>mats console</h1>
    </main>
  )
}
