import { formatDate, parseJSON } from "./utils";

export function main(args: string[]): number {
  const settings = parseJSON(args[0] ?? "{}");
  console.log(`${formatDate(new Date())}: loaded settings`, settings);
  return 0;
}

main(process.argv.slice(2));
