// Types for wink-lemmatizer (MIT, https://github.com/winkjs/wink-lemmatizer), which ships none.
declare module "wink-lemmatizer" {
  const lemmatizer: {
    noun(word: string): string;
    verb(word: string): string;
    adjective(word: string): string;
  };
  export default lemmatizer;
}
