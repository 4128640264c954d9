/** The part of madge's API (it ships no types) that test/layers.test.ts uses. */
declare module 'madge' {
  type Tree = Record<string, string[]>;
  interface MadgeResult {
    obj(): Tree;
    circular(): string[][];
  }
  interface MadgeConfig {
    fileExtensions?: string[];
    detectiveOptions?: Record<string, unknown>;
  }
  export default function madge(path: string | Tree, config?: MadgeConfig): Promise<MadgeResult>;
}
