// Prints, one per line, the CID that `ipfs add --cid-version=1 --raw-leaves`
// gives each file named on the command line, computed by the ipfs-only-hash
// package (js-ipfs's UnixFS importer): the oracle for our own CIDs.
import { readFile } from 'node:fs/promises'
import Hash from 'ipfs-only-hash'

for (const path of process.argv.slice(2)) {
  const cid = await Hash.of(await readFile(path), { cidVersion: 1, rawLeaves: true })
  process.stdout.write(cid + '\n')
}
