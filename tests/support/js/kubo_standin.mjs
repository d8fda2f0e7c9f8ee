// A stand-in for a Kubo node's RPC API, for testing our Kubo client where no
// Kubo binary can be installed. It speaks the documented contract of the
// commands we use (https://docs.ipfs.tech/reference/kubo/rpc/), POST only:
//   /api/v0/add        multipart upload → {"Name","Hash","Size"} (one line)
//   /api/v0/block/get  ?arg=<cid> → the block's bytes
//   /api/v0/version    → {"Version", …}
// and answers failures in Kubo's shape: HTTP 500 {"Message","Code":0,"Type":"error"}.
// CIDs come from the ipfs-only-hash package (js-ipfs's UnixFS importer).
//
// usage: node kubo_standin.mjs --port N [--lie] [--corrupt] [--fail MESSAGE] [--hang]
//   --lie      answer add with the CID of other bytes (to test that it is checked)
//   --corrupt  answer block/get with the block and one byte more
//   --fail     answer every add with a Kubo error carrying MESSAGE
//   --hang     accept requests and never answer them
import http from 'node:http'
import Hash from 'ipfs-only-hash'

const args = process.argv.slice(2)
const option = (name) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : undefined }
const port = Number(option('--port'))
const lie = args.includes('--lie')
const corrupt = args.includes('--corrupt')
const failure = option('--fail')
const hang = args.includes('--hang')

const blocks = new Map() // CID text → Buffer
const hashOptions = { cidVersion: 1, rawLeaves: true }

function kuboError (res, status, message) {
  res.writeHead(status, { 'Content-Type': 'application/json' })
  res.end(JSON.stringify({ Message: message, Code: 0, Type: 'error' }) + '\n')
}

// The add options that make Kubo's CID the raw CID of a one-chunk file; the
// stand-in refuses any other request instead of silently answering another CID.
const requiredAddOptions = { 'cid-version': '1', 'raw-leaves': 'true', pin: 'true' }

async function add (url, req, res) {
  for (const [name, value] of Object.entries(requiredAddOptions)) {
    if (url.searchParams.get(name) !== value) return kuboError(res, 400, `stand-in expects ${name}=${value}`)
  }
  if (failure !== undefined) return kuboError(res, 500, failure)
  const chunks = []
  for await (const chunk of req) chunks.push(chunk)
  const body = Buffer.concat(chunks)
  // undici's multipart/form-data parser, through the fetch API's Response.
  const form = await new Response(body, { headers: { 'Content-Type': req.headers['content-type'] ?? '' } }).formData()
  const file = [...form.values()].find((v) => typeof v !== 'string')
  if (!file) return kuboError(res, 400, 'file argument \'path\' is required')
  const content = Buffer.from(await file.arrayBuffer())
  const cid = await Hash.of(content, hashOptions)
  blocks.set(cid, content)
  const answered = lie ? await Hash.of(Buffer.concat([content, Buffer.from('!')]), hashOptions) : cid
  res.writeHead(200, { 'Content-Type': 'application/json', 'X-Chunked-Output': '1' })
  res.end(JSON.stringify({ Name: file.name, Hash: answered, Size: String(content.length) }) + '\n')
}

function blockGet (url, res) {
  const cid = url.searchParams.get('arg') ?? ''
  const block = blocks.get(cid)
  if (!block) return kuboError(res, 500, `block was not found locally (offline): ipld: could not find ${cid}`)
  res.writeHead(200, { 'Content-Type': 'text/plain' })
  res.end(corrupt ? Buffer.concat([block, Buffer.from('!')]) : block)
}

const server = http.createServer(async (req, res) => {
  if (hang) return
  try {
    const url = new URL(req.url, 'http://stand-in')
    if (req.method !== 'POST') {
      res.writeHead(405)
      return res.end('405 - Method Not Allowed\n')
    }
    switch (url.pathname) {
      case '/api/v0/add': return await add(url, req, res)
      case '/api/v0/block/get': return blockGet(url, res)
      case '/api/v0/version':
        res.writeHead(200, { 'Content-Type': 'application/json' })
        return res.end(JSON.stringify({ Version: '0.0.0-standin', Commit: '', Repo: '16', System: 'stand-in' }) + '\n')
      default:
        res.writeHead(404)
        return res.end('404 page not found\n')
    }
  } catch (e) {
    kuboError(res, 500, String(e))
  }
})
server.listen(port, '127.0.0.1')
process.on('SIGTERM', () => process.exit(0))
