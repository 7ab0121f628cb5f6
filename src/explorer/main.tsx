/**
 * The explorer's entry: the header (title, search box) and the page of the current route. Served by the node
 * at its JSON-RPC port (dist/explorer/, bundled by scripts/bundle-explorer.mjs); talks only to that origin.
 */
import { render } from 'preact'
import { AddressPage } from './pages/address.js'
import { BlockPage } from './pages/block.js'
import { Home } from './pages/home.js'
import { TxPage } from './pages/tx.js'
import { startRouter, useRoute } from './router.js'
import { SearchBox } from './search.js'
import './style.css'

function Page() {
  const route = useRoute()
  switch (route.page) {
    case 'home':
      return <Home />
    case 'block':
      return <BlockPage key={route.id} id={route.id} />
    case 'tx':
      return <TxPage key={route.hash} hash={route.hash} />
    case 'address':
      return <AddressPage key={route.address} address={route.address} />
    default:
      return (
        <section>
          <h1>Not found</h1>
          <p>No page at {route.path}.</p>
        </section>
      )
  }
}

function App() {
  return (
    <>
      <header>
        <a href="/" class="brand">
          node-cli explorer
        </a>
        <SearchBox />
      </header>
      <main>
        <Page />
      </main>
    </>
  )
}

startRouter()
render(<App />, document.getElementById('app') as HTMLElement)
