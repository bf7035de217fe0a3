export {
  initKeyring,
  issueKey,
  keyringFiles,
  KeyringError,
  listKeys,
  rerollKey,
  retireKey,
  revokeKey,
  rotateKey,
  verifiedKeyIdOf,
  type IssuedKey,
  type IssueRequest,
  type KeyStopped,
} from './keyring.js';
export { parseDuration } from './parse-duration.js';
