import { render } from 'preact'
import { App } from './app.js'
import { readEarly } from './early-reads.js'
import './styles.css'

readEarly()
const root = document.getElementById('app')
if (root) render(<App />, root)
